import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Ledger } from '@recourse/core';
import { SqliteLedger } from '@recourse/core/sqlite';
import { PostgresLedger } from '@recourse/store-postgres';
import { RedisLedger } from '@recourse/store-redis';
import { Redis } from 'ioredis';
import pg from 'pg';

export const redisUrl = process.env.RECOURSE_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const postgresUrl =
  process.env.RECOURSE_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Where a shared ledger lives: plain data, so it can be handed to a worker process. */
export type StoreSpec =
  | { kind: 'sqlite'; path: string }
  | { kind: 'redis'; url: string; keyPrefix: string }
  | { kind: 'postgres'; connectionString: string; table: string };

export type StoreKind = StoreSpec['kind'];
export const storeKinds: readonly StoreKind[] = ['sqlite', 'redis', 'postgres'];

/** A fresh, empty ledger location of `kind`, unique to one test. */
export function createStoreSpec(kind: StoreKind, dir: string): StoreSpec {
  const id = randomUUID().replaceAll('-', '').slice(0, 12);
  switch (kind) {
    case 'sqlite':
      return { kind, path: join(dir, `ledger-${id}.db`) };
    case 'redis':
      return { kind, url: redisUrl, keyPrefix: `recourse-workers:${id}:` };
    case 'postgres':
      return { kind, connectionString: postgresUrl, table: `workers_${id}` };
  }
}

export function openLedger(spec: StoreSpec, leaseMs: number): Ledger {
  switch (spec.kind) {
    case 'sqlite':
      return new SqliteLedger({ path: spec.path, leaseMs });
    case 'redis':
      return new RedisLedger({ url: spec.url, keyPrefix: spec.keyPrefix, leaseMs });
    case 'postgres':
      return new PostgresLedger({
        connectionString: spec.connectionString,
        table: spec.table,
        leaseMs,
      });
  }
}

/** Removes what a test's ledger left in the shared services (SQLite files go with the temp dir). */
export async function dropStore(spec: StoreSpec): Promise<void> {
  if (spec.kind === 'redis') {
    const client = new Redis(spec.url);
    try {
      const keys = await client.keys(`${spec.keyPrefix}*`);
      if (keys.length > 0) await client.del(...keys);
    } finally {
      client.disconnect();
    }
  } else if (spec.kind === 'postgres') {
    const client = new pg.Client({ connectionString: spec.connectionString });
    await client.connect();
    try {
      await client.query(
        `DROP TABLE IF EXISTS ${spec.table}, ${spec.table}_repairs, ${spec.table}_facts`,
      );
    } finally {
      await client.end();
    }
  }
}
