import type { CauseCount, StrategyMetrics } from '../chaos/chaos-metrics.js';
import { n } from './format.js';
import { type ChaosSize, defaultRecourse } from './report-data.js';

const sum = (counts: readonly CauseCount[]) => counts.reduce((total, c) => total + c.jobs, 0);

function groupBy(counts: readonly CauseCount[], key: (c: CauseCount) => string) {
  const groups = new Map<string, CauseCount[]>();
  for (const c of counts) groups.set(key(c), [...(groups.get(key(c)) ?? []), c]);
  return [...groups.entries()].sort((a, b) => sum(b[1]) - sum(a[1]) || a[0].localeCompare(b[0]));
}

/**
 * Fault kind × what recourse said, for every job it did not finish correctly: which
 * policy rule cost the most jobs. Cells are job counts.
 */
export function causePivot(metrics: StrategyMetrics): string {
  const { unfinished } = metrics;
  if (unfinished.length === 0) return `${metrics.strategy} finished every job correctly.`;
  const reasons = groupBy(unfinished, (c) => c.reason).map(([reason]) => reason);
  const header = `| fault the stopping step met | ${reasons.join(' | ')} | total |\n|---|${reasons.map(() => '---:|').join('')}---:|`;
  const rows = groupBy(unfinished, (c) => c.fault).map(([fault, counts]) => {
    const cells = reasons.map((reason) => {
      const jobs = sum(counts.filter((c) => c.reason === reason));
      return jobs === 0 ? '' : n(jobs);
    });
    return `| ${fault} | ${cells.join(' | ')} | **${n(sum(counts))}** |`;
  });
  const totals = reasons.map((reason) => n(sum(unfinished.filter((c) => c.reason === reason))));
  return [
    header,
    ...rows,
    `| **total** | ${totals.join(' | ')} | **${n(sum(unfinished))}** |`,
  ].join('\n');
}

/** The same jobs, one row per (fault, kind of step, what recourse said), with what was recoverable. */
export function causeDetail(metrics: StrategyMetrics): string {
  const header =
    '| fault | step | what recourse said | jobs | of which protected | of which a baseline finished correctly |\n|---|---|---|---:|---:|---:|';
  const rows = metrics.unfinished.map(
    (c) =>
      `| ${c.fault} | ${c.target} | ${c.reason} | ${n(c.jobs)} | ${n(c.protectedJobs)} | ${n(c.baselineCorrect ?? 0)} |`,
  );
  return [header, ...rows].join('\n');
}

/** The breakdown for one size: the pivot, then the detail, for recourse's default configuration. */
export function causesSection(size: ChaosSize, detail: boolean): string {
  const recourse = defaultRecourse(size);
  if (!recourse) return '';
  const others = size.metrics.filter(
    (m) => m.kind === 'recourse' && m !== recourse && sameCauses(m, recourse),
  );
  const same = others.length > 0 ? ` (${others.map((m) => m.strategy).join(', ')}: the same)` : '';
  return `Why ${recourse.strategy} did not finish ${n(sum(recourse.unfinished))} jobs${same}: the fault the stopping step met × the contract's \`recommended_recovery\` and \`code\`${detail ? '; then by kind of step, with how many of each a baseline did finish correctly' : ''}.

${causePivot(recourse)}${detail ? `\n\n${causeDetail(recourse)}` : ''}`;
}

function sameCauses(a: StrategyMetrics, b: StrategyMetrics): boolean {
  return JSON.stringify(a.unfinished) === JSON.stringify(b.unfinished);
}
