import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { SqliteTables } from './sqlite-schema.js';

export interface SqliteStatements {
  readRecord: StatementSync;
  writeRecord: StatementSync;
  deleteRecord: StatementSync;
  /** Parameters: retentionMs, now, retentionMs, now. Same rule as `isPastRetention`. */
  purgeRecords: StatementSync;
  /** Parameters: run, fingerprint, now. Returns the new count. */
  addRepair: StatementSync;
  /** Parameters: run, fingerprint. */
  readRepairs: StatementSync;
  /** Parameters: run, kind, id, JSON, now. One change when the fact is new. */
  addFact: StatementSync;
  /** Parameters: run. Every kind, oldest first. */
  listFacts: StatementSync;
}

/** Prepared once per connection; the tables must exist. */
export function prepareSqliteStatements(db: DatabaseSync, tables: SqliteTables): SqliteStatements {
  const { records, repairs, facts } = tables;
  return {
    readRecord: db.prepare(`SELECT * FROM ${records} WHERE key = ?`),
    writeRecord: db.prepare(
      `INSERT OR REPLACE INTO ${records}
         (key, state, payload_hash, token, result_json, result_unstorable, lease_expires_at,
          note, in_doubt, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    deleteRecord: db.prepare(`DELETE FROM ${records} WHERE key = ?`),
    purgeRecords: db.prepare(
      `DELETE FROM ${records} WHERE
         (state = 'in_flight' AND lease_expires_at + ? <= ?) OR
         (state <> 'in_flight' AND updated_at + ? <= ?)`,
    ),
    // One statement: SQLite runs it under the write lock, so concurrent adds never lose one.
    addRepair: db.prepare(
      `INSERT INTO ${repairs} (run_id, fingerprint, count, updated_at) VALUES (?, ?, 1, ?)
       ON CONFLICT (run_id, fingerprint)
         DO UPDATE SET count = count + 1, updated_at = excluded.updated_at
       RETURNING count`,
    ),
    readRepairs: db.prepare(`SELECT count FROM ${repairs} WHERE run_id = ? AND fingerprint = ?`),
    addFact: db.prepare(
      `INSERT INTO ${facts} (run_id, kind, id, data, created_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (run_id, kind, id) DO NOTHING`,
    ),
    listFacts: db.prepare(`SELECT kind, data FROM ${facts} WHERE run_id = ? ORDER BY seq`),
  };
}
