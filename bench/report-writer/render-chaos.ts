import type { StrategyMetrics } from '../chaos/chaos-metrics.js';
import { n, percent } from './format.js';
import { perFaultSection } from './render-per-fault.js';
import { type ChaosSize, defaultRecourse, sizeLabel } from './report-data.js';

/** One row per strategy: correct completions first, then duplicates, then amplification. */
export function chaosTable(size: ChaosSize): string {
  const protectedTotal = size.metrics[0]?.protectedJobs.total ?? 0;
  const header = `| strategy | correct completions | protected jobs (${n(protectedTotal)}): correct / missed | duplicate writes | outage amplification | lost writes | in doubt (landed) | wasted attempts | completed / aborted / blocked / timed out | requests per job | job time p50 / p99 (virtual ms) |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|`;
  const row = (m: StrategyMetrics) =>
    `| ${m.strategy} | **${n(m.correctCompletions)}** (${percent(m.correctCompletions, m.jobs.total)}) | ${n(m.protectedJobs.correct)} / ${n(m.protectedMissed ?? 0)} | ${n(m.duplicateWrites)} | ${m.outage.amplification.toFixed(2)} (${n(m.outage.requests)} / ${n(m.outage.operations)}) | ${n(m.lostWrites)} | ${n(m.inDoubt.writes)} (${n(m.inDoubt.landed)}) | ${n(m.wastedAttempts)} | ${n(m.jobs.completed)} / ${n(m.jobs.aborted)} / ${n(m.jobs.blocked)} / ${n(m.jobs.timedOut)} | ${m.requestsPerJob} | ${n(Math.round(m.jobWallMs.p50))} / ${n(Math.round(m.jobWallMs.p99))} |`;
  return [header, ...size.metrics.map(row)].join('\n');
}

const best = (metrics: readonly StrategyMetrics[], pick: (m: StrategyMetrics) => number) =>
  metrics.reduce((a, b) => (pick(b) > pick(a) ? b : a));

/** The headline claims, in the order the lead reads them. */
export function headlineClaims(sizes: readonly ChaosSize[], largest: ChaosSize): string {
  const recourse = defaultRecourse(largest);
  const baselines = largest.metrics.filter((m) => m.kind === 'baseline');
  if (!recourse || baselines.length === 0) return '';
  const top = best(baselines, (m) => m.correctCompletions);
  const topProtected = best(baselines, (m) => m.protectedJobs.correct);
  const allRecourse = sizes.flatMap((size) => size.metrics.filter((m) => m.kind === 'recourse'));
  const clean = allRecourse.every((m) => m.duplicateWrites === 0 && m.lostWrites === 0);
  const duplicates = baselines.map((m) => `${m.strategy} ${n(m.duplicateWrites)}`).join(', ');
  const amplification = largest.metrics
    .map((m) => `${m.strategy} ${m.outage.amplification.toFixed(2)}`)
    .join(', ');
  return [
    `- **Correct completions** (completed before the per-job deadline, every write landed exactly once): recourse ${n(recourse.correctCompletions)} of ${n(recourse.jobs.total)} (${percent(recourse.correctCompletions, recourse.jobs.total)}); the best baseline, ${top.strategy}, ${n(top.correctCompletions)} (${percent(top.correctCompletions, top.jobs.total)}).`,
    `- **Protected jobs** (${n(recourse.protectedJobs.total)}; every write whose outcome a fault left unknown is idempotent or reconcilable): recourse finished ${n(recourse.protectedJobs.correct)} correctly, ${topProtected.strategy} ${n(topProtected.protectedJobs.correct)}; recourse missed **${n(recourse.protectedMissed ?? 0)}** protected jobs that some baseline finished correctly (goal: 0).`,
    `- **Duplicate writes**: recourse, every ledger and every size: **${clean ? '0 duplicate and 0 lost writes' : 'DUPLICATE OR LOST WRITES FOUND — see the tables'}**; baselines at ${sizeLabel(largest)}: ${duplicates}.`,
    `- **Outage amplification** (requests into the outage per operation that sent any; goal ≤ 1.10): ${amplification}.`,
  ].join('\n');
}

/** Every size's table, with the real time each strategy's run cost. */
export function everySize(
  sizes: readonly ChaosSize[],
  causes: (size: ChaosSize) => string,
): string {
  return sizes
    .map(
      (size) =>
        `### ${sizeLabel(size)}\n\n${chaosTable(size)}\n\n${perFaultSection(size)}\n\nReal time per strategy run (ms): ${size.metrics.map((m) => `${m.strategy} ${n(m.realMs)}`).join(', ')}.\n\n${causes(size)}`,
    )
    .join('\n\n');
}
