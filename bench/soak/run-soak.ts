// A server's life: thousands of runs on one process and several workers on one store.
// `./run.sh bench soak [--quick]` (from bench/: tsx --conditions=recourse-source soak/run-soak.ts).
// Measured on the build with plain node; writes report/soak.md, soak.json and two charts
// (report-quick/ with --quick). A benchmark, not a test: nothing here asserts a time.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildForBench, plainEnvironment, root, runPlainNode } from '../on-build.js';
import { runOverheadOnBuild } from '../overhead/overhead-on-build.js';
import { measureWorkers } from './run-workers.js';
import { type SoakResult, writeSoakReport } from './soak-report.js';
import { soakStoreNames } from './soak-stores.js';

const quick = process.argv.includes('--quick');

const log = (line: string) => console.log(`[soak] ${line}`);
const started = performance.now();

buildForBench(
  ['packages/core', 'packages/ai-sdk-adapter', 'packages/store-postgres', 'packages/store-redis'],
  join('bench', 'soak'),
  log,
);

// `--keep=DIR`: each store's figures are written to DIR and a store whose figures are there
// already is not run again (a long PostgreSQL pass can be resumed). `--runs-postgres=N`:
// PostgreSQL commits every claim and completion synchronously, ~1 ms each on a VM disk, so
// its pass can be shortened; the report gives each store's run count.
const option = (name: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const keep = option('keep');
const temporary = mkdtempSync(join(tmpdir(), 'recourse-soak-'));
const outputs = keep ?? temporary;
const runs = Number(option('runs') ?? (quick ? 500 : 10_000));
mkdirSync(outputs, { recursive: true });
// SQLite's fsync per commit dominates on a VM disk; tmpfs keeps the run to minutes, as in `pnpm bench`.
const sqliteDirectory =
  process.env.RECOURSE_BENCH_TMP ?? (existsSync('/dev/shm') ? '/dev/shm' : temporary);
const stores: SoakResult['stores'] = [];
try {
  for (const store of soakStoreNames) {
    const output = join(outputs, `${store}.json`);
    const storeRuns = Number(option(`runs-${store}`) ?? runs);
    if (!existsSync(output)) {
      log(`${store}: ${storeRuns} runs of 20 calls`);
      runPlainNode(
        [
          '--expose-gc',
          join('bench', 'soak', 'dist', 'soak-main.js'),
          store,
          String(storeRuns),
          output,
          sqliteDirectory,
        ],
        plainEnvironment(),
      );
    }
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

// The in-process goals, on the same build: the overhead cases in their own plain process,
// three times (one process's JIT can favour one case or another); the median by the write.
const inProcessRuns = Array.from({ length: 3 }, () =>
  runOverheadOnBuild({ iterations: quick ? 2_000 : 20_000, rounds: quick ? 3 : 7, log }),
);
const writeRatio = (run: (typeof inProcessRuns)[number]) =>
  run.goals.find((g) => g.name.startsWith('recourse write'))?.value ?? 0;
const inProcess = [...inProcessRuns].sort((a, b) => writeRatio(a) - writeRatio(b))[1]!;

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
  inProcess,
  inProcessRuns,
});
log(`wrote ${files.join(', ')} in ${Math.round((performance.now() - started) / 1000)} s`);
