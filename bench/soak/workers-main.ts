// One worker process of the workers benchmark, run on the build with plain node and an IPC
// channel: `node workers-main.js <redis|postgres> <claim|raw> <name> <worker> <concurrency>`.
// It connects and warms up, says `ready`, waits for `go` with a duration, then claims fresh
// keys (or makes the store's raw conditional write) `concurrency` at a time until the
// duration is over, and sends back how many it did and how long each took.
import type { Ledger } from '@recourse/core';
import { PostgresLedger } from '@recourse/store-postgres';
import { RedisLedger } from '@recourse/store-redis';
import { Redis } from 'ioredis';
import pg from 'pg';
import { postgresUrl, redisUrl } from './soak-stores.js';

export interface WorkerReport {
  operations: number;
  seconds: number;
  /** Milliseconds per operation, every one of them. */
  latencies: number[];
}

const [store, mode, name, worker, concurrencyArgument] = process.argv.slice(2);
const concurrency = Number(concurrencyArgument);
const leaseMs = 30_000;

async function open(): Promise<{ write(key: string): Promise<void>; close(): Promise<void> }> {
  if (store === 'redis') {
    if (mode === 'claim') {
      const ledger: Ledger = new RedisLedger({ url: redisUrl, keyPrefix: `${name}:`, leaseMs });
      return {
        write: async (key) => {
          const claimed = await ledger.claim({ key, payloadHash: 'h' });
          if (claimed.status !== 'acquired')
            throw new Error(`fresh key ${key} was ${claimed.status}`);
        },
        close: async () => ledger.close?.(),
      };
    }
    const redis = new Redis(redisUrl);
    return {
      write: async (key) => {
        if ((await redis.set(`${name}:raw:${key}`, 'in_flight', 'PX', leaseMs, 'NX')) !== 'OK')
          throw new Error('fresh raw key existed');
      },
      close: async () => void redis.disconnect(),
    };
  }
  if (mode === 'claim') {
    const ledger: Ledger = new PostgresLedger({
      connectionString: postgresUrl,
      table: name!,
      leaseMs,
    });
    return {
      write: async (key) => {
        const claimed = await ledger.claim({ key, payloadHash: 'h' });
        if (claimed.status !== 'acquired')
          throw new Error(`fresh key ${key} was ${claimed.status}`);
      },
      close: async () => ledger.close?.(),
    };
  }
  // The ledger's pool keeps up to 10 connections; `concurrency` of them are used at once.
  const pool = new pg.Pool({ connectionString: postgresUrl, max: concurrency });
  const insert = `INSERT INTO ${name}_raw (key, value, expires_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`;
  return {
    write: async (key) => {
      if ((await pool.query(insert, [key, 'in_flight', Date.now() + leaseMs])).rowCount !== 1)
        throw new Error('fresh raw key existed');
    },
    close: () => pool.end(),
  };
}

const target = await open();
// Warm-up: every connection the run will use, opened before the clock starts.
await Promise.all(
  Array.from({ length: concurrency }, (_, i) => target.write(`w${worker}:warm:${i}`)),
);
const send = (message: unknown) =>
  new Promise<void>((resolve, reject) =>
    process.send!(message, undefined, {}, (error) => (error ? reject(error) : resolve())),
  );
process.once('message', async (message: { durationMs: number }) => {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  const until = started + message.durationMs;
  const lane = async () => {
    while (performance.now() < until) {
      const key = `w${worker}:${next++}`;
      const began = performance.now();
      await target.write(key);
      latencies.push(performance.now() - began);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  const seconds = (performance.now() - started) / 1000;
  await target.close();
  const report: WorkerReport = { operations: latencies.length, seconds, latencies };
  await send(report);
  process.disconnect();
});
await send('ready');
