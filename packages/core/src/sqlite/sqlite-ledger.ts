import type { DatabaseSync } from 'node:sqlite';
import {
  InvalidOptionsError,
  LeaseLostError,
  LedgerUnavailableError,
  RecourseError,
} from '../errors.js';
import type {
  ClaimRequest,
  ClaimResult,
  Denial,
  Ledger,
  LedgerOptions,
  LedgerRecord,
} from '../ledger/ledger.js';
import {
  createToken,
  isPastRetention,
  planClaim,
  planComplete,
  planMarkUncertain,
  planRelease,
  type StoredRecord,
  toLedgerRecord,
} from '../ledger/record-rules.js';
import {
  type ResolvedLedgerOptions,
  resolveLedgerOptions,
} from '../ledger/resolve-ledger-options.js';
import type { JsonValue } from '../types.js';
import {
  readDenialRow,
  readRecordRow,
  toCapabilityKey,
  toRecordParameters,
} from './sqlite-rows.js';
import {
  createSqliteSchema,
  nameSqliteTables,
  type SqliteTables,
  sqliteSchemaVersion,
} from './sqlite-schema.js';

export interface SqliteLedgerOptions extends LedgerOptions {
  /** A file path (created when missing) or `:memory:`. */
  path: string;
  /** Prepended to every table name, so that several ledgers can share one file. Default `recourse_`. */
  tablePrefix?: string | undefined;
  /** How long a write waits for another process's lock before failing. Default 5 s. */
  busyTimeoutMs?: number | undefined;
}

// Old expired rows are deleted on open and every this many claims, not on every claim.
const purgeEvery = 500;

/**
 * A durable ledger in one SQLite file, on Node's built-in `node:sqlite` (no dependency).
 * Several processes on one machine may share the file: every claim is a read and a
 * conditional write inside one `BEGIN IMMEDIATE` transaction, and WAL mode lets readers
 * run beside the writer. The API is synchronous underneath: a write waiting for another
 * process's lock blocks this process's event loop for up to `busyTimeoutMs`.
 */
export class SqliteLedger implements Ledger {
  readonly name = 'sqlite';
  readonly #options: ResolvedLedgerOptions;
  readonly #tables: SqliteTables;
  readonly #db: DatabaseSync;
  #claimsSincePurge = 0;

  constructor(options: SqliteLedgerOptions) {
    if (typeof options?.path !== 'string' || options.path === '') {
      throw new InvalidOptionsError('path', 'must be a file path or ":memory:"');
    }
    const prefix = options.tablePrefix ?? 'recourse_';
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,40}$/.test(prefix)) {
      throw new InvalidOptionsError('tablePrefix', 'must be letters, digits and underscores');
    }
    const busyTimeoutMs = options.busyTimeoutMs ?? 5_000;
    if (!Number.isInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
      throw new InvalidOptionsError('busyTimeoutMs', 'must be a whole number of milliseconds');
    }
    this.#options = resolveLedgerOptions(options);
    this.#tables = nameSqliteTables(prefix);
    this.#db = openDatabase(options.path, busyTimeoutMs);
    this.#run(
      'open',
      () => {
        const version = this.#transaction(() => createSqliteSchema(this.#db, this.#tables));
        if (version > sqliteSchemaVersion) {
          throw new Error(
            `schema version ${version} is newer than this library's ${sqliteSchemaVersion}`,
          );
        }
        this.#transaction(() => this.#purge());
      },
      () => this.#db.close(),
    );
  }

  async claim(request: ClaimRequest): Promise<ClaimResult> {
    return this.#run('claim', () =>
      this.#transaction(() => {
        if (++this.#claimsSincePurge >= purgeEvery) this.#purge();
        const plan = planClaim(
          this.#read(request.key),
          request,
          this.#now(),
          this.#options,
          createToken(),
        );
        if (plan.write) this.#write(plan.write);
        return plan.result;
      }),
    );
  }

  async complete(key: string, token: string, result: JsonValue): Promise<void> {
    const completed = this.#run('complete', () =>
      this.#transaction(() => {
        const next = planComplete(this.#read(key), token, this.#now(), result);
        if (next) this.#write(next);
        return next !== undefined;
      }),
    );
    if (!completed) throw new LeaseLostError(key);
  }

  async release(key: string, token: string): Promise<boolean> {
    return this.#run('release', () =>
      this.#transaction(() => {
        const plan = planRelease(this.#read(key), token, this.#now());
        if (!plan.released) return false;
        if (plan.write) this.#write(plan.write);
        else this.#db.prepare(`DELETE FROM ${this.#tables.records} WHERE key = ?`).run(key);
        return true;
      }),
    );
  }

  async markUncertain(key: string, token: string, note?: string | undefined): Promise<boolean> {
    return this.#run('markUncertain', () =>
      this.#transaction(() => {
        const next = planMarkUncertain(this.#read(key), token, this.#now(), note);
        if (next) this.#write(next);
        return next !== undefined;
      }),
    );
  }

  async get(key: string): Promise<LedgerRecord | undefined> {
    return this.#run('get', () => {
      const stored = this.#read(key);
      if (!stored || isPastRetention(stored, this.#now(), this.#options.retentionMs))
        return undefined;
      return toLedgerRecord(stored);
    });
  }

  async incrementCounter(runId: string, name: string, by = 1): Promise<number> {
    return this.#run('incrementCounter', () => {
      const row = this.#db
        .prepare(
          `INSERT INTO ${this.#tables.counters} (run_id, name, value) VALUES (?, ?, ?)
           ON CONFLICT (run_id, name) DO UPDATE SET value = value + excluded.value
           RETURNING value`,
        )
        .get(runId, name, by);
      return Number(row?.value);
    });
  }

  async getCounter(runId: string, name: string): Promise<number> {
    return this.#run('getCounter', () => {
      const row = this.#db
        .prepare(`SELECT value FROM ${this.#tables.counters} WHERE run_id = ? AND name = ?`)
        .get(runId, name);
      return row ? Number(row.value) : 0;
    });
  }

  async addDenial(runId: string, denial: Denial): Promise<void> {
    this.#run('addDenial', () => {
      this.#db
        .prepare(
          `INSERT INTO ${this.#tables.denials}
             (run_id, resource, capability_key, capability, tool, reason, at)
           VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
        )
        .run(
          runId,
          denial.resource,
          toCapabilityKey(denial.capability),
          denial.capability ?? null,
          denial.tool,
          denial.reason,
          denial.at,
        );
    });
  }

  async listDenials(runId: string): Promise<Denial[]> {
    return this.#run('listDenials', () =>
      this.#db
        .prepare(
          `SELECT resource, capability, tool, reason, at FROM ${this.#tables.denials}
           WHERE run_id = ? ORDER BY id`,
        )
        .all(runId)
        .map(readDenialRow),
    );
  }

  async close(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
  }

  #now(): number {
    return this.#options.clock.now();
  }

  #read(key: string): StoredRecord | undefined {
    const row = this.#db.prepare(`SELECT * FROM ${this.#tables.records} WHERE key = ?`).get(key);
    return row ? readRecordRow(row) : undefined;
  }

  #write(record: StoredRecord): void {
    this.#db
      .prepare(
        `INSERT OR REPLACE INTO ${this.#tables.records}
           (key, state, payload_hash, token, result, lease_expires_at, note, in_doubt, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(...toRecordParameters(record));
  }

  /** Deletes records past retention (the same rule `isPastRetention` applies on read). */
  #purge(): void {
    this.#claimsSincePurge = 0;
    this.#db
      .prepare(
        `DELETE FROM ${this.#tables.records} WHERE
           (state = 'in_flight' AND lease_expires_at + ? <= ?) OR
           (state <> 'in_flight' AND updated_at + ? <= ?)`,
      )
      .run(this.#options.retentionMs, this.#now(), this.#options.retentionMs, this.#now());
  }

  /** Runs `work` holding the database's write lock, so that its read and write are one step. */
  #transaction<T>(work: () => T): T {
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      const value = work();
      this.#db.exec('COMMIT');
      return value;
    } catch (error) {
      rollBack(this.#db);
      throw error;
    }
  }

  /** Turns database failures into `LedgerUnavailableError`, which callers treat as TRANSIENT. */
  #run<T>(operation: string, work: () => T, onFailure?: () => void): T {
    try {
      return work();
    } catch (error) {
      onFailure?.();
      throw toUnavailable(operation, error);
    }
  }
}

function openDatabase(path: string, busyTimeoutMs: number): DatabaseSync {
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
    throw toUnavailable('open', error);
  }
}

function rollBack(db: DatabaseSync): void {
  try {
    db.exec('ROLLBACK');
  } catch {
    // No transaction was open (BEGIN itself failed): nothing to undo.
  }
}

function toUnavailable(operation: string, error: unknown): RecourseError {
  if (RecourseError.isInstance(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new LedgerUnavailableError('sqlite', `${operation}: ${message}`, { cause: error });
}
