import type { DatabaseSync } from 'node:sqlite';

/** Bump when the tables change; an older library refuses a newer file instead of guessing. */
export const sqliteSchemaVersion = 1;

export interface SqliteTables {
  meta: string;
  records: string;
  counters: string;
  denials: string;
}

export function nameSqliteTables(prefix: string): SqliteTables {
  return {
    meta: `${prefix}meta`,
    records: `${prefix}records`,
    counters: `${prefix}counters`,
    denials: `${prefix}denials`,
  };
}

/**
 * Creates the tables when missing and returns the file's schema version. Runs inside the
 * caller's transaction, so that processes opening one new file at once do not race.
 */
export function createSqliteSchema(db: DatabaseSync, tables: SqliteTables): number {
  db.exec(`
    CREATE TABLE IF NOT EXISTS ${tables.meta} (
      name TEXT PRIMARY KEY,
      value TEXT NOT NULL
    );
    CREATE TABLE IF NOT EXISTS ${tables.records} (
      key TEXT PRIMARY KEY,
      state TEXT NOT NULL,
      payload_hash TEXT NOT NULL,
      token TEXT NOT NULL,
      result TEXT,
      lease_expires_at INTEGER,
      note TEXT,
      in_doubt INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    );
    CREATE TABLE IF NOT EXISTS ${tables.counters} (
      run_id TEXT NOT NULL,
      name TEXT NOT NULL,
      value INTEGER NOT NULL,
      PRIMARY KEY (run_id, name)
    );
    CREATE TABLE IF NOT EXISTS ${tables.denials} (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      run_id TEXT NOT NULL,
      resource TEXT NOT NULL,
      -- '' for no capability, '=' + capability otherwise: NULLs are never equal in UNIQUE.
      capability_key TEXT NOT NULL,
      capability TEXT,
      tool TEXT NOT NULL,
      reason TEXT NOT NULL,
      at INTEGER NOT NULL,
      UNIQUE (run_id, resource, capability_key)
    );
  `);
  db.prepare(`INSERT OR IGNORE INTO ${tables.meta} (name, value) VALUES ('schema_version', ?)`).run(
    String(sqliteSchemaVersion),
  );
  const row = db.prepare(`SELECT value FROM ${tables.meta} WHERE name = 'schema_version'`).get();
  return Number(row?.value);
}
