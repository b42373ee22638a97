import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { LedgerUnavailableError, RecourseError } from '../errors.js';

/**
 * Opens the file through `process.getBuiltinModule`, so that a Node without `node:sqlite`
 * (before 22.13) fails here with `LedgerUnavailableError` instead of at module load.
 * Node 22 prints an ExperimentalWarning on first use; Node 24.21 prints none.
 */
export function openDatabase(path: string, busyTimeoutMs: number): DatabaseSync {
  let db: DatabaseSync | undefined;
  try {
    const sqlite = process.getBuiltinModule('node:sqlite');
    if (!sqlite) throw new Error('node:sqlite is missing: Node 22.13 or newer is required');
    db = new sqlite.DatabaseSync(path);
    db.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
    // WAL: readers never block the writer; changing the journal mode needs the busy timeout set first.
    if (path !== ':memory:') db.exec('PRAGMA journal_mode = WAL');
    return db;
  } catch (error) {
    if (db?.isOpen) db.close();
    throw toUnavailable('open', error, path);
  }
}

/** Runs `work` holding the database's write lock, so that its reads and writes are one step. */
export function runInTransaction<T>(db: DatabaseSync, work: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const value = work();
    db.exec('COMMIT');
    return value;
  } catch (error) {
    rollBack(db);
    throw error;
  }
}

function rollBack(db: DatabaseSync): void {
  try {
    db.exec('ROLLBACK');
  } catch {
    // No transaction was open (BEGIN itself failed): nothing to undo.
  }
}

/**
 * Database failures become `LedgerUnavailableError` naming the file, which callers treat as
 * TRANSIENT. SQLite's own text for a missing directory ("unable to open database file")
 * says neither which file nor why: the message adds both.
 */
export function toUnavailable(operation: string, error: unknown, path: string): RecourseError {
  if (RecourseError.isInstance(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  const directory = dirname(path);
  const why =
    operation === 'open' && path !== ':memory:' && !existsSync(directory)
      ? `: the directory ${directory} does not exist`
      : '';
  return new LedgerUnavailableError('sqlite', `${operation}: ${message}${why}`, {
    cause: error,
    target: path,
  });
}
