// Claims per second of every ledger store, next to the store's raw conditional write.
// From bench/: tsx --conditions=recourse-source stores/run.ts [--quick]
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureStore, type StoreRow } from './measure-store.js';
import { openPostgresCase, openRedisCase, openSqliteCase, type StoreCase } from './store-cases.js';
import { writeStoresReport } from './write-stores-report.js';

const quick = process.argv.includes('--quick');
const durationMs = quick ? 400 : 1_200;
const concurrentClients = 8;
const here = dirname(fileURLToPath(import.meta.url));
const redisUrl = process.env.RECOURSE_REDIS_URL ?? 'redis://127.0.0.1:6379';
const postgresUrl = process.env.RECOURSE_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
// The project disk (where the repository lives) against tmpfs: fsync per commit is the difference.
const diskDir = mkdtempSync(join(here, '..', '.stores-bench-'));
const sqliteDirs: [string, string][] = [['SQLite (project disk)', diskDir]];
if (existsSync('/dev/shm')) sqliteDirs.unshift(['SQLite (/dev/shm)', '/dev/shm']);

const openers: ((clients: number) => Promise<StoreCase> | StoreCase)[] = [
  ...sqliteDirs.map(
    ([name, dir]) =>
      (clients: number) =>
        openSqliteCase(name, dir, clients),
  ),
  (clients) => openRedisCase(redisUrl, clients),
  (clients) => openPostgresCase(postgresUrl, clients),
];

const rows: StoreRow[] = [];
const started = performance.now();
try {
  for (const open of openers) {
    for (const clients of [1, concurrentClients]) {
      const store = await open(clients);
      try {
        const row = await measureStore(store, clients, durationMs);
        rows.push(row);
        console.log(
          `[stores] ${row.store}, ${clients} client(s): claim ${Math.round(row.claim)}/s, claim+complete ${Math.round(row.claimComplete)}/s, raw ${Math.round(row.raw)}/s, ratio ${row.ratio.toFixed(2)}`,
        );
      } finally {
        await store.close();
      }
    }
  }
} finally {
  rmSync(diskDir, { recursive: true, force: true });
}
const cpu = cpus();
writeStoresReport(join(here, '..', quick ? 'report-quick' : 'report'), {
  generatedAt: new Date().toISOString(),
  environment: {
    node: process.versions.node,
    platform: `${process.platform}-${process.arch}`,
    cpus: cpu.length,
    cpuModel: cpu[0]?.model.trim() ?? 'unknown',
  },
  durationMs,
  rows,
});
console.log(`[stores] done in ${Math.round((performance.now() - started) / 1000)} s`);
