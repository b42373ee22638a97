import { existsSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultFaultMix } from './chaos/fault-schedule.js';
import { runChaos } from './chaos/run-chaos.js';
import { allStrategies } from './chaos/strategies/all-strategies.js';
import { runOverhead } from './overhead/run-overhead.js';
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
  const metrics = [];
  for (const strategy of allStrategies) {
    const result = await runChaos({ ...size, seed }, strategy, (done, total) => {
      if (total >= 1_000 && done < total)
        log(`${sizeLabel(size)} · ${strategy.name}: ${done}/${total} jobs`);
    });
    log(
      `${sizeLabel(size)} · ${strategy.name}: ${result.duplicateWrites} duplicate, ${result.lostWrites} lost, ${result.wastedAttempts} wasted, amplification ${result.outage.amplification} (${result.realMs} ms real)`,
    );
    metrics.push(result);
  }
  chaos.push({ ...size, metrics });
}
const overhead = await runOverhead({
  iterations: quick ? 2_000 : 20_000,
  rounds: quick ? 2 : 5,
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
