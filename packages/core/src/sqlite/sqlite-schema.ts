import type { DatabaseSync } from 'node:sqlite';

/**
 * Bump when the tables change; an older library refuses a newer file instead of guessing.
 * 2: results as text (`result_json`, `result_unstorable`), repair counts and run facts
 * (the tables of version 1's counters and denials are left as they were, unread).
 */
export const sqliteSchemaVersion = 2;

export interface SqliteTables {
  meta: string;
  records: string;
  repairs: string;
  facts: string;
}

export function nameSqliteTables(prefix: string): SqliteTables {
  return {
    meta: `${prefix}meta`,
    records: `${prefix}records`,
    repairs: `${prefix}repairs`,
    facts: `${prefix}facts`,
  };
}

/**
 * Creates the tables when missing, brings a version 1 file up to date, and returns the
 * file's schema version. Runs inside the caller's transaction, so that processes opening
 * one new (or old) file at once do not race.
 */
export function createSqliteSchema(db: DatabaseSync, tables: SqliteTables): number {
  db.exec(`CREATE TABLE IF NOT EXISTS ${tables.meta} (name TEXT PRIMARY KEY, value TEXT NOT NULL)`);
  const found = readVersion(db, tables);
  if (found !== undefined && found > sqliteSchemaVersion) return found;
  if (found === 1) {
    // Version 1 kept the result as JSON text already: the column only changes its name.
    db.exec(`
      ALTER TABLE ${tables.records} RENAME COLUMN result TO result_json;
      ALTER TABLE ${tables.records} ADD COLUMN result_unstorable TEXT;
    `);
  }
  db.exec(`
    CREATE TABLE IF NOT EXISTS ${tables.records} (
      key TEXT PRIMARY KEY,
      state TEXT NOT NULL,
      payload_hash TEXT NOT NULL,
      token TEXT NOT NULL,
      -- The result as the caller serialised it, byte for byte; NULL: nothing returned.
      result_json TEXT,
      -- Set when the write completed but its result could not be stored: why.
      result_unstorable TEXT,
      lease_expires_at INTEGER,
      note TEXT,
      in_doubt INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    );
    CREATE TABLE IF NOT EXISTS ${tables.repairs} (
      run_id TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      count INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (run_id, fingerprint)
    );
    CREATE TABLE IF NOT EXISTS ${tables.facts} (
      -- The rowid: always above every existing row's, so it orders facts oldest first.
      seq INTEGER PRIMARY KEY,
      run_id TEXT NOT NULL,
      kind TEXT NOT NULL,
      id TEXT NOT NULL,
      data TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      UNIQUE (run_id, kind, id)
    );
  `);
  db.prepare(
    `INSERT OR REPLACE INTO ${tables.meta} (name, value) VALUES ('schema_version', ?)`,
  ).run(String(sqliteSchemaVersion));
  return sqliteSchemaVersion;
}

function readVersion(db: DatabaseSync, tables: SqliteTables): number | undefined {
  const row = db.prepare(`SELECT value FROM ${tables.meta} WHERE name = 'schema_version'`).get();
  return row === undefined ? undefined : Number(row.value);
}
