import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Ledger, MemoryLedger } from '@recourse/core';

export const redisUrl = process.env.RECOURSE_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const postgresUrl =
  process.env.RECOURSE_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';

/**
 * One ledger location, empty and unique to a test. `open()` gives a handle on it; a second
 * `open()` is another process's handle, or this process after a restart: what the run
 * learned must be there.
 */
export interface LedgerLocation {
  open(): Promise<Ledger>;
  /** Closes every handle opened and removes what the test left in the shared service. */
  drop(): Promise<void>;
}

export interface LedgerKind {
  name: 'memory' | 'sqlite' | 'redis' | 'postgres';
  create(): LedgerLocation;
}

const uniqueId = () => randomUUID().replaceAll('-', '').slice(0, 12);

// Store operations still on the wire, across every handle: a fake clock must not move while
// one is (a ledger deadline on the run's clock would expire during a real round trip).
let inFlight = 0;
let idle: (() => void)[] = [];

/** Resolves once no store operation of any handle is on the wire. */
export function storesIdle(): Promise<void> {
  return inFlight === 0 ? Promise.resolve() : new Promise((resolve) => idle.push(resolve));
}

/** `ledger` with every method that returns a promise counted while it is pending. */
function tracked(ledger: Ledger): Ledger {
  return new Proxy(ledger, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const answer = value.apply(target, args);
        if (!(answer instanceof Promise)) return answer;
        inFlight++;
        const done = () => {
          if (--inFlight > 0) return;
          const waiting = idle;
          idle = [];
          for (const resolve of waiting) resolve();
        };
        answer.then(done, done);
        return answer;
      };
    },
  });
}

function withHandles(
  openOne: () => Ledger,
  cleanUp: () => Promise<void> = async () => {},
): LedgerLocation {
  const handles: Ledger[] = [];
  return {
    async open() {
      const ledger = tracked(openOne());
      handles.push(ledger);
      return ledger;
    },
    async drop() {
      await Promise.all(handles.map((ledger) => ledger.close?.()));
      await cleanUp();
    },
  };
}

const memory: LedgerKind = {
  name: 'memory',
  create() {
    // Every handle of a memory ledger is the same object: a restart of the runtime, not of the store.
    const ledger = new MemoryLedger();
    return withHandles(() => ledger);
  },
};

async function sqliteKind(): Promise<LedgerKind> {
  const { SqliteLedger } = await import('@recourse/core/sqlite');
  return {
    name: 'sqlite',
    create() {
      const dir = mkdtempSync(join(tmpdir(), 'recourse-mistakes-'));
      const path = join(dir, 'ledger.db');
      return withHandles(
        (): Ledger => new SqliteLedger({ path }),
        async () => rmSync(dir, { recursive: true, force: true }),
      );
    },
  };
}

async function redisKind(): Promise<LedgerKind> {
  const { RedisLedger } = await import('@recourse/store-redis');
  return {
    name: 'redis',
    create() {
      const keyPrefix = `recourse-mistakes:${uniqueId()}:`;
      return withHandles(
        (): Ledger => new RedisLedger({ url: redisUrl, keyPrefix }),
        async () => {
          const { Redis } = await import('ioredis');
          const client = new Redis(redisUrl);
          try {
            const keys = await client.keys(`${keyPrefix}*`);
            if (keys.length > 0) await client.del(...keys);
          } finally {
            client.disconnect();
          }
        },
      );
    },
  };
}

async function postgresKind(): Promise<LedgerKind> {
  const { PostgresLedger } = await import('@recourse/store-postgres');
  return {
    name: 'postgres',
    create() {
      const table = `mistakes_${uniqueId()}`;
      return withHandles(
        (): Ledger => new PostgresLedger({ connectionString: postgresUrl, table }),
        async () => {
          const { default: pg } = await import('pg');
          const client = new pg.Client({ connectionString: postgresUrl });
          await client.connect();
          try {
            // The store's own tables all start with its table name.
            const { rows } = await client.query<{ tablename: string }>(
              "SELECT tablename FROM pg_tables WHERE tablename LIKE $1 || '%'",
              [table],
            );
            for (const { tablename } of rows)
              await client.query(`DROP TABLE IF EXISTS "${tablename}"`);
          } finally {
            await client.end();
          }
        },
      );
    },
  };
}

/** The memory, SQLite, Redis and PostgreSQL ledgers: a store that fails to load fails the tests. */
export async function ledgerKinds(): Promise<LedgerKind[]> {
  return [memory, await sqliteKind(), await redisKind(), await postgresKind()];
}
