// Prints the per-fault table of single-fault jobs for one size, every strategy, on
// virtual time: `tsx --conditions=recourse-source chaos/print-per-fault.ts [jobs] [rate]`.
import { compareWithBaselines } from './chaos-metrics.js';
import { perFaultTable } from './per-fault.js';
import { type ChaosRun, runChaos } from './run-chaos.js';
import { allStrategies } from './strategies/all-strategies.js';

const jobs = Number(process.argv[2] ?? 1_000);
const rate = Number(process.argv[3] ?? 0.05);
const only = process.argv[4];
const runs: ChaosRun[] = [];
for (const strategy of allStrategies) {
  if (only && strategy.kind === 'recourse' && !strategy.name.includes(only)) continue;
  const run = await runChaos({ jobs, rate, seed: 20_260_511 }, strategy);
  const m = run.metrics;
  console.log(
    `${strategy.name}: ${m.correctCompletions} correct, ${m.duplicateWrites} duplicate, ${m.lostWrites} lost, amplification ${m.outage.amplification}`,
  );
  runs.push(run);
}
compareWithBaselines(runs);
const names = runs.map((run) => run.metrics.strategy);
console.log(['fault', 'jobs', ...names].join('\t'));
for (const row of perFaultTable(runs)) {
  console.log([row.fault, row.jobs, ...names.map((name) => row.correct[name])].join('\t'));
}
const recourse = runs.find((run) => run.metrics.kind === 'recourse');
for (const cause of recourse?.metrics.unfinished.slice(0, 12) ?? [])
  console.log(`  ${cause.jobs} × ${cause.fault} · ${cause.target} · ${cause.reason}`);
