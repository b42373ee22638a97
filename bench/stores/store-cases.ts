import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import type { Ledger } from '@recourse/core';
import { SqliteLedger } from '@recourse/core/sqlite';
import { PostgresLedger } from '@recourse/store-postgres';
import { RedisLedger } from '@recourse/store-redis';
import { Redis } from 'ioredis';
import pg from 'pg';

/**
 * One store under test: `clients` ledgers (one connection each where the store has
 * connections) and the store's own conditional write on a fresh key, with the same
 * durability settings, measured side by side.
 */
export interface StoreCase {
  name: string;
  ledgers: Ledger[];
  /** The raw conditional write the ledger's claim is built on; true when it inserted. */
  rawWrite(client: number, key: string): Promise<boolean>;
  close(): Promise<void>;
}

const leaseMs = 30_000;

export function openSqliteCase(name: string, dir: string, clients: number): StoreCase {
  const id = randomUUID().slice(0, 8);
  const ledgerPath = join(dir, `recourse-bench-${id}.db`);
  const rawPath = join(dir, `recourse-bench-raw-${id}.db`);
  const ledgers = Array.from(
    { length: clients },
    () => new SqliteLedger({ path: ledgerPath, leaseMs }),
  );
  const sqlite = process.getBuiltinModule('node:sqlite');
  const raws: DatabaseSync[] = Array.from({ length: clients }, () => {
    const db = new sqlite.DatabaseSync(rawPath);
    // The ledger's settings: a busy timeout, WAL, SQLite's default synchronous (FULL).
    db.exec('PRAGMA busy_timeout = 5000');
    db.exec('PRAGMA journal_mode = WAL');
    db.exec(
      'CREATE TABLE IF NOT EXISTS raw (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at INTEGER NOT NULL)',
    );
    return db;
  });
  const inserts = raws.map((db) =>
    db.prepare('INSERT OR IGNORE INTO raw (key, value, expires_at) VALUES (?, ?, ?)'),
  );
  return {
    name,
    ledgers,
    async rawWrite(client, key) {
      return inserts[client]!.run(key, 'in_flight', Date.now() + leaseMs).changes === 1;
    },
    async close() {
      for (const ledger of ledgers) await ledger.close?.();
      for (const db of raws) db.close();
      for (const path of [ledgerPath, rawPath])
        for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
    },
  };
}

export function openRedisCase(url: string, clients: number): StoreCase {
  const keyPrefix = `recourse-bench:${randomUUID().slice(0, 8)}:`;
  const ledgers = Array.from(
    { length: clients },
    () => new RedisLedger({ url, keyPrefix, leaseMs }),
  );
  const raws = Array.from({ length: clients }, () => new Redis(url));
  return {
    name: 'Redis',
    ledgers,
    async rawWrite(client, key) {
      return (
        (await raws[client]!.set(`${keyPrefix}raw:${key}`, 'in_flight', 'PX', leaseMs, 'NX')) ===
        'OK'
      );
    },
    async close() {
      const keys = await raws[0]!.keys(`${keyPrefix}*`);
      for (let i = 0; i < keys.length; i += 10_000)
        await raws[0]!.del(...keys.slice(i, i + 10_000));
      for (const ledger of ledgers) await ledger.close?.();
      for (const raw of raws) raw.disconnect();
    },
  };
}

export async function openPostgresCase(
  connectionString: string,
  clients: number,
): Promise<StoreCase> {
  const table = `bench_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
  // One ledger (and its pool) per client, so N clients hold N connections, as N workers would.
  const ledgers = Array.from(
    { length: clients },
    () => new PostgresLedger({ connectionString, table, leaseMs }),
  );
  const pool = new pg.Pool({ connectionString, max: clients });
  await pool.query(
    `CREATE TABLE ${table}_raw (key text PRIMARY KEY, value text NOT NULL, expires_at bigint NOT NULL)`,
  );
  const insert = `INSERT INTO ${table}_raw (key, value, expires_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`;
  return {
    name: 'PostgreSQL',
    ledgers,
    async rawWrite(_client, key) {
      return (await pool.query(insert, [key, 'in_flight', Date.now() + leaseMs])).rowCount === 1;
    },
    async close() {
      for (const ledger of ledgers) await ledger.close?.();
      await pool.query(
        `DROP TABLE IF EXISTS ${table}_raw, ${table}, ${table}_repairs, ${table}_facts`,
      );
      await pool.end();
    },
  };
}
