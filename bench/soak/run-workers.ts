import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { PostgresLedger } from '@recourse/store-postgres';
import { Redis } from 'ioredis';
import pg from 'pg';
import { root } from '../on-build.js';
import { dropPostgresTables, dropRedisKeys, postgresUrl, redisUrl } from './soak-stores.js';
import type { WorkerReport } from './workers-main.js';

export type WorkerStore = 'postgres' | 'redis';
export type WriteMode = 'claim' | 'raw';

export interface WorkersRow {
  store: WorkerStore;
  workers: number;
  /** Ledger claims on fresh keys per second, all workers together. */
  claims: number;
  claimP99Ms: number;
  /** The store's raw conditional write, the same way. */
  raw: number;
  rawP99Ms: number;
  /** claims ÷ raw. */
  ratio: number;
  /** Redis: the server's own time per claim and per raw write (INFO commandstats), µs. */
  serverUsPerClaim?: number | undefined;
  serverUsPerRaw?: number | undefined;
}

/** Microseconds the Redis server spent in commands since the last RESETSTAT. */
async function redisServerUs(admin: Redis): Promise<number> {
  const info = await admin.info('commandstats');
  let total = 0;
  for (const match of info.matchAll(/^cmdstat_(\w+):calls=\d+,usec=(\d+)/gm)) {
    // Commands a script runs are counted inside the script's own time too.
    if (!['hmget', 'hset', 'pexpire', 'del', 'info', 'config'].includes(match[1]!))
      total += Number(match[2]);
  }
  return total;
}

const main = join(root, 'bench', 'soak', 'dist', 'workers-main.js');

/** `workers` processes at once, each `concurrency` operations in flight, for `durationMs`. */
async function runWorkers(
  store: WorkerStore,
  mode: WriteMode,
  name: string,
  workers: number,
  concurrency: number,
  durationMs: number,
): Promise<WorkerReport[]> {
  const { NODE_OPTIONS: _, ...env } = process.env;
  const children = Array.from({ length: workers }, (_, worker) =>
    fork(main, [store, mode, name, `${worker}-${randomUUID().slice(0, 6)}`, String(concurrency)], {
      cwd: root,
      env,
      execArgv: [],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }),
  );
  const exited = children.map(
    (child) =>
      new Promise<void>((resolve, reject) =>
        child.once('exit', (code) =>
          code === 0 ? resolve() : reject(new Error(`a ${store} worker exited with ${code}`)),
        ),
      ),
  );
  const reports = children.map(
    (child) =>
      new Promise<WorkerReport>((resolve, reject) => {
        child.on('message', (message) => {
          if (message === 'ready') return;
          resolve(message as WorkerReport);
        });
        child.once('exit', (code) => reject(new Error(`a ${store} worker exited with ${code}`)));
      }),
  );
  // Every worker connected and warmed up before any starts: they all run in the same window.
  await Promise.all(
    children.map((child) => new Promise<void>((resolve) => child.once('message', () => resolve()))),
  );
  const admin = store === 'redis' ? new Redis(redisUrl) : undefined;
  await admin?.config('RESETSTAT');
  for (const child of children) child.send({ durationMs });
  const done = await Promise.all(reports);
  await Promise.all(exited);
  if (admin) {
    const operations = done.reduce((sum, report) => sum + report.operations, 0);
    serverUs[mode].push(await redisServerUs(admin), operations);
    admin.disconnect();
  }
  return done;
}

// Redis server time and operations of each round, per mode: [us, operations, us, ...].
const serverUs: Record<WriteMode, number[]> = { claim: [], raw: [] };
const perOperation = (values: number[]) => {
  let us = 0;
  let operations = 0;
  for (let i = 0; i < values.length; i += 2) {
    us += values[i]!;
    operations += values[i + 1]!;
  }
  return operations > 0 ? us / operations : undefined;
};

function summarise(reports: WorkerReport[][]) {
  const operations = reports.flat().reduce((sum, report) => sum + report.operations, 0);
  // The window each round ran for is its slowest worker's; rounds are added up.
  const seconds = reports.reduce((sum, round) => sum + Math.max(...round.map((r) => r.seconds)), 0);
  const latencies = reports
    .flat()
    .flatMap((report) => report.latencies)
    .sort((a, b) => a - b);
  const p99 = latencies[Math.min(latencies.length - 1, Math.floor(0.99 * latencies.length))] ?? 0;
  return { perSecond: operations / seconds, p99 };
}

async function prepare(store: WorkerStore, name: string) {
  if (store === 'redis') return () => dropRedisKeys(`${name}:`);
  // The tables exist before the workers start: they would race to create them otherwise.
  const ledger = new PostgresLedger({ connectionString: postgresUrl, table: name });
  await ledger.claim({ key: 'create', payloadHash: 'h' });
  await ledger.close();
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  await client.query(
    `CREATE TABLE ${name}_raw (key text PRIMARY KEY, value text NOT NULL, expires_at bigint NOT NULL)`,
  );
  await client.end();
  return () => dropPostgresTables(name);
}

/**
 * Claims per second and p99 claim latency with 1, 2, 4 and 8 worker processes on one store,
 * next to the store's raw conditional write with the same processes. Claim and raw rounds
 * alternate, so a noisy neighbour slows both alike.
 */
export async function measureWorkers(options: {
  stores: readonly WorkerStore[];
  workerCounts: readonly number[];
  concurrency: number;
  durationMs: number;
  rounds: number;
  log: (line: string) => void;
}): Promise<WorkersRow[]> {
  const rows: WorkersRow[] = [];
  for (const store of options.stores) {
    for (const workers of options.workerCounts) {
      const name = `soakw_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
      const cleanUp = await prepare(store, name);
      try {
        const runs: Record<WriteMode, WorkerReport[][]> = { claim: [], raw: [] };
        serverUs.claim = [];
        serverUs.raw = [];
        for (let round = 0; round < options.rounds; round++) {
          for (const mode of ['claim', 'raw'] as const) {
            runs[mode].push(
              await runWorkers(
                store,
                mode,
                name,
                workers,
                options.concurrency,
                options.durationMs / options.rounds,
              ),
            );
          }
        }
        const claim = summarise(runs.claim);
        const raw = summarise(runs.raw);
        const row: WorkersRow = {
          store,
          workers,
          claims: claim.perSecond,
          claimP99Ms: claim.p99,
          raw: raw.perSecond,
          rawP99Ms: raw.p99,
          ratio: claim.perSecond / raw.perSecond,
          serverUsPerClaim: perOperation(serverUs.claim),
          serverUsPerRaw: perOperation(serverUs.raw),
        };
        rows.push(row);
        options.log(
          `workers · ${store} × ${workers}: ${Math.round(row.claims)} claims/s (p99 ${row.claimP99Ms.toFixed(2)} ms), raw ${Math.round(row.raw)}/s (p99 ${row.rawP99Ms.toFixed(2)} ms), ratio ${row.ratio.toFixed(2)}`,
        );
      } finally {
        await cleanUp();
      }
    }
  }
  return rows;
}
