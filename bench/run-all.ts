import { existsSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compareWithBaselines } from './chaos/chaos-metrics.js';
import { defaultFaultMix } from './chaos/fault-schedule.js';
import { perFaultTable } from './chaos/per-fault.js';
import { type ChaosRun, runChaos } from './chaos/run-chaos.js';
import { defaultAgentTurns, defaultDeadlineMs, defaultModelTurnMs } from './chaos/run-job.js';
import { allStrategies } from './chaos/strategies/all-strategies.js';
import { runOverheadOnBuild } from './overhead/overhead-on-build.js';
import type { BenchResults, ChaosSize } from './report-writer/report-data.js';
import { sizeLabel } from './report-writer/report-data.js';
import { updateReadmeHeadline, writeReport } from './report-writer/write-report.js';

// `pnpm bench` (default) or `pnpm bench --quick` (a smoke run; writes to report-quick/).
const quick = process.argv.includes('--quick');
const seed = 20_260_511;
const sizes = quick
  ? [{ jobs: 50, rate: 0.05 }]
  : [
      { jobs: 50, rate: 0.05 },
      { jobs: 5_000, rate: 0.05 },
      { jobs: 1_000, rate: 0.2 },
    ];
const here = dirname(fileURLToPath(import.meta.url));
const output = join(here, quick ? 'report-quick' : 'report');
// SQLite's fsync per commit dominates real time on a VM disk; tmpfs keeps the run short.
const sqliteDirectory = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
process.env.RECOURSE_BENCH_TMP ??= sqliteDirectory;

const log = (line: string) => console.log(`[bench] ${line}`);
const started = performance.now();
const chaos: ChaosSize[] = [];
for (const size of sizes) {
  const runs: ChaosRun[] = [];
  for (const strategy of allStrategies) {
    const run = await runChaos({ ...size, seed }, strategy, (done, total) => {
      if (total >= 1_000 && done < total)
        log(`${sizeLabel(size)} · ${strategy.name}: ${done}/${total} jobs`);
    });
    const m = run.metrics;
    log(
      `${sizeLabel(size)} · ${strategy.name}: ${m.correctCompletions} correct, ${m.duplicateWrites} duplicate, ${m.lostWrites} lost, amplification ${m.outage.amplification} (${m.realMs} ms real)`,
    );
    runs.push(run);
  }
  compareWithBaselines(runs);
  chaos.push({ ...size, metrics: runs.map((run) => run.metrics), perFault: perFaultTable(runs) });
}
const overhead = runOverheadOnBuild({
  iterations: quick ? 2_000 : 20_000,
  rounds: quick ? 2 : 7,
  log,
});
const cpu = cpus();
const results: BenchResults = {
  generatedAt: new Date().toISOString(),
  environment: {
    node: process.versions.node,
    platform: `${process.platform}-${process.arch}`,
    cpus: cpu.length,
    cpuModel: cpu[0]?.model.trim() ?? 'unknown',
  },
  seed,
  quick,
  faultMix: defaultFaultMix,
  agent: {
    turns: defaultAgentTurns,
    modelTurnMs: defaultModelTurnMs,
    deadlineMs: defaultDeadlineMs,
  },
  sqliteDirectory: process.env.RECOURSE_BENCH_TMP,
  chaos,
  overhead,
};
const files = writeReport(results, output);
log(
  `wrote ${files.length} files to ${output} in ${Math.round((performance.now() - started) / 1000)} s`,
);
if (
  !quick &&
  updateReadmeHeadline(results, fileURLToPath(new URL('../README.md', import.meta.url)))
) {
  log('updated the headline in README.md');
}
// The stores: claims per second next to each store's raw conditional write (writes
// report/stores.md and stores.json; report-quick/ with --quick).
await import('./stores/run.js');
