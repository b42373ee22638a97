import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { type Ledger, MemoryLedger } from '@recourse/core';
import { SqliteLedger } from '@recourse/core/sqlite';
import { PostgresLedger } from '@recourse/store-postgres';
import { RedisLedger } from '@recourse/store-redis';
import { Redis } from 'ioredis';
import pg from 'pg';

export const soakStoreNames = ['memory', 'sqlite', 'redis', 'postgres'] as const;
export type SoakStoreName = (typeof soakStoreNames)[number];

export const redisUrl = process.env.RECOURSE_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const postgresUrl =
  process.env.RECOURSE_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface OpenedStore {
  ledger: Ledger;
  /** Drops what the benchmark wrote (tables, keys, files); the ledger is closed first. */
  cleanUp(): Promise<void>;
}

/** One ledger of the named store, on a fresh table / key prefix / file of its own. */
export function openSoakStore(name: SoakStoreName, directory: string): OpenedStore {
  const id = randomUUID().replaceAll('-', '').slice(0, 10);
  switch (name) {
    case 'memory':
      return { ledger: new MemoryLedger(), cleanUp: async () => {} };
    case 'sqlite': {
      const path = join(directory, `recourse-soak-${id}.db`);
      return {
        ledger: new SqliteLedger({ path }),
        cleanUp: async () => {
          for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
        },
      };
    }
    case 'redis': {
      const keyPrefix = `recourse-soak:${id}:`;
      return {
        ledger: new RedisLedger({ url: redisUrl, keyPrefix }),
        cleanUp: () => dropRedisKeys(keyPrefix),
      };
    }
    case 'postgres': {
      const table = `soak_${id}`;
      return {
        ledger: new PostgresLedger({ connectionString: postgresUrl, table }),
        cleanUp: () => dropPostgresTables(table),
      };
    }
  }
}

export async function dropRedisKeys(keyPrefix: string): Promise<void> {
  const redis = new Redis(redisUrl);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 10_000);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

export async function dropPostgresTables(table: string): Promise<void> {
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    await client.query(
      `DROP TABLE IF EXISTS ${table}, ${table}_repairs, ${table}_facts, ${table}_raw`,
    );
  } finally {
    await client.end();
  }
}
