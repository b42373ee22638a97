// A server's life: thousands of runs on one process and several workers on one store.
// `./run.sh bench soak [--quick]` (from bench/: tsx --conditions=recourse-source soak/run-soak.ts).
// Measured on the build with plain node; writes report/soak.md, soak.json and two charts
// (report-quick/ with --quick). A benchmark, not a test: nothing here asserts a time.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildForBench, plainEnvironment, root, runPlainNode } from '../on-build.js';
import { measureWorkers } from './run-workers.js';
import { type SoakResult, writeSoakReport } from './soak-report.js';
import { soakStoreNames } from './soak-stores.js';

const quick = process.argv.includes('--quick');
const runsArgument = process.argv.find((a) => a.startsWith('--runs='));
const runs = runsArgument ? Number(runsArgument.slice('--runs='.length)) : quick ? 500 : 10_000;
const log = (line: string) => console.log(`[soak] ${line}`);
const started = performance.now();

buildForBench(
  ['packages/core', 'packages/ai-sdk-adapter', 'packages/store-postgres', 'packages/store-redis'],
  join('bench', 'soak'),
  log,
);

const temporary = mkdtempSync(join(tmpdir(), 'recourse-soak-'));
// SQLite's fsync per commit dominates on a VM disk; tmpfs keeps the run to minutes, as in `pnpm bench`.
const sqliteDirectory =
  process.env.RECOURSE_BENCH_TMP ?? (existsSync('/dev/shm') ? '/dev/shm' : temporary);
const stores: SoakResult['stores'] = [];
try {
  for (const store of soakStoreNames) {
    const output = join(temporary, `${store}.json`);
    log(`${store}: ${runs} runs of 20 calls`);
    runPlainNode(
      [
        '--expose-gc',
        join('bench', 'soak', 'dist', 'soak-main.js'),
        store,
        String(runs),
        output,
        sqliteDirectory,
      ],
      plainEnvironment(),
    );
    stores.push(JSON.parse(readFileSync(output, 'utf8')));
  }
} finally {
  rmSync(temporary, { recursive: true, force: true });
}

const workers = await measureWorkers({
  stores: ['postgres', 'redis'],
  workerCounts: [1, 2, 4, 8],
  concurrency: 4,
  durationMs: quick ? 1_000 : 4_000,
  rounds: 2,
  log,
});

const cpu = cpus();
const files = writeSoakReport(join(root, 'bench', quick ? 'report-quick' : 'report'), {
  generatedAt: new Date().toISOString(),
  environment: {
    node: process.versions.node,
    platform: `${process.platform}-${process.arch}`,
    cpus: cpu.length,
    cpuModel: cpu[0]?.model.trim() ?? 'unknown',
    loadAverage: (await import('node:os')).loadavg()[0] ?? 0,
  },
  runs,
  stores,
  workers,
});
log(`wrote ${files.join(', ')} in ${Math.round((performance.now() - started) / 1000)} s`);
