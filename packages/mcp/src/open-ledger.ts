import path from 'node:path';
import type { Ledger } from '@recourse/core';

/** The CLI's default ledger: a SQLite file in the working directory. */
export const defaultLedgerFile = 'recourse-mcp.ledger.sqlite';

/** A ledger the proxy opened itself, closed with it. */
export type OwnedLedger = Ledger & { close(): Promise<void> };

/**
 * `--ledger`: `postgres://…` / `postgresql://…` (`@recourse/store-postgres` and `pg`
 * installed), `redis://…` / `rediss://…` (`@recourse/store-redis` and `ioredis`), anything
 * else a SQLite file path. Each store is loaded only when asked for.
 */
export async function openLedger(target: string | undefined, cwd: string): Promise<OwnedLedger> {
  const where = target ?? path.join(cwd, defaultLedgerFile);
  if (/^postgres(?:ql)?:\/\//i.test(where)) {
    const { PostgresLedger } = await load<typeof import('@recourse/store-postgres')>(
      '@recourse/store-postgres',
      'a PostgreSQL ledger needs @recourse/store-postgres and pg installed',
    );
    return new PostgresLedger({ connectionString: where });
  }
  if (/^rediss?:\/\//i.test(where)) {
    const { RedisLedger } = await load<typeof import('@recourse/store-redis')>(
      '@recourse/store-redis',
      'a Redis ledger needs @recourse/store-redis and ioredis installed',
    );
    return new RedisLedger({ url: where });
  }
  const { SqliteLedger } = await import('@recourse/core/sqlite');
  return new SqliteLedger({ path: path.resolve(cwd, where) });
}

async function load<T>(name: string, hint: string): Promise<T> {
  try {
    return (await import(name)) as T;
  } catch (error) {
    throw new Error(`${hint} (${error instanceof Error ? error.message : String(error)})`);
  }
}
