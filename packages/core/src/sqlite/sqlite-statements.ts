import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { SqliteTables } from './sqlite-schema.js';

export interface SqliteStatements {
  readRecord: StatementSync;
  writeRecord: StatementSync;
  deleteRecord: StatementSync;
  /** Parameters: retentionMs, now, retentionMs, now. Same rule as `isPastRetention`. */
  purgeRecords: StatementSync;
  incrementCounter: StatementSync;
  readCounter: StatementSync;
  addDenial: StatementSync;
  listDenials: StatementSync;
}

/** Prepared once per connection; the tables must exist. */
export function prepareSqliteStatements(db: DatabaseSync, tables: SqliteTables): SqliteStatements {
  const { records, counters, denials } = tables;
  return {
    readRecord: db.prepare(`SELECT * FROM ${records} WHERE key = ?`),
    writeRecord: db.prepare(
      `INSERT OR REPLACE INTO ${records}
         (key, state, payload_hash, token, result, lease_expires_at, note, in_doubt, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    deleteRecord: db.prepare(`DELETE FROM ${records} WHERE key = ?`),
    purgeRecords: db.prepare(
      `DELETE FROM ${records} WHERE
         (state = 'in_flight' AND lease_expires_at + ? <= ?) OR
         (state <> 'in_flight' AND updated_at + ? <= ?)`,
    ),
    incrementCounter: db.prepare(
      `INSERT INTO ${counters} (run_id, name, value) VALUES (?, ?, ?)
       ON CONFLICT (run_id, name) DO UPDATE SET value = value + excluded.value
       RETURNING value`,
    ),
    readCounter: db.prepare(`SELECT value FROM ${counters} WHERE run_id = ? AND name = ?`),
    addDenial: db.prepare(
      `INSERT INTO ${denials} (run_id, resource, capability_key, capability, tool, reason, at)
       VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    ),
    listDenials: db.prepare(
      `SELECT resource, capability, tool, reason, at FROM ${denials} WHERE run_id = ? ORDER BY id`,
    ),
  };
}
