import type { DatabaseSync } from 'node:sqlite';
import { InvalidOptionsError, LeaseLostError } from '../errors.js';
import { markAnswersAtOnce } from '../ledger/answers-at-once.js';
import { checkStoredResult } from '../ledger/check-stored-result.js';
import type {
  ClaimRequest,
  ClaimResult,
  Ledger,
  LedgerOptions,
  LedgerRecord,
  RunFactKind,
  RunFactLists,
  RunFacts,
  StoredResult,
} from '../ledger/ledger.js';
import {
  ClaimTokens,
  isPastRetention,
  planClaim,
  planComplete,
  planMarkUncertain,
  planRelease,
  planRenew,
  type StoredRecord,
  toLedgerRecord,
} from '../ledger/record-rules.js';
import {
  type ResolvedLedgerOptions,
  resolveLedgerOptions,
} from '../ledger/resolve-ledger-options.js';
import { createRunFactLists, pushRunFact, serializeRunFact } from '../ledger/run-fact-text.js';
import { openDatabase, runInTransaction, toUnavailable } from './sqlite-database.js';
import { readRecordRow, toRecordParameters } from './sqlite-rows.js';
import { createSqliteSchema, nameSqliteTables, sqliteSchemaVersion } from './sqlite-schema.js';
import { prepareSqliteStatements, type SqliteStatements } from './sqlite-statements.js';

export interface SqliteLedgerOptions extends LedgerOptions {
  /** A file path (created when missing) or `:memory:`. */
  path: string;
  /** Prepended to every table name, so that several ledgers can share one file. Default `recourse_`. */
  tablePrefix?: string | undefined;
  /** How long a write waits for another process's lock before failing. Default 5 s. */
  busyTimeoutMs?: number | undefined;
}

// Records past retention are deleted on open and every this many claims, not on every claim.
const purgeEvery = 500;

/**
 * A durable ledger in one SQLite file, on Node's built-in `node:sqlite` (no dependency).
 * Several processes on one machine may share the file: every claim is a read and a
 * conditional write inside one `BEGIN IMMEDIATE` transaction, and WAL mode lets readers
 * run beside the writer. The API is synchronous underneath: a write waiting for another
 * process's lock blocks this process's event loop for up to `busyTimeoutMs`.
 *
 * Results are kept as the caller's JSON text, byte for byte. Repair counts and run facts
 * are kept apart from records and never purged by retention (a run's facts must outlive
 * its records); delete a finished run's with, for example:
 * `DELETE FROM recourse_facts WHERE created_at < :cutoff` and
 * `DELETE FROM recourse_repairs WHERE updated_at < :cutoff` (milliseconds since the epoch).
 *
 * There is no `watchFacts`: processes sharing a file have no cheap way to push a change
 * to each other (`PRAGMA data_version` only tells a poller that something changed), so
 * the runtime reads facts from the file on every call, one indexed query.
 */
export class SqliteLedger implements Ledger {
  readonly name = 'sqlite';
  readonly #options: ResolvedLedgerOptions;
  readonly #db: DatabaseSync;
  readonly #path: string;
  readonly #sql: SqliteStatements;
  readonly #tokens = new ClaimTokens();
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
    const db = openDatabase(options.path, busyTimeoutMs);
    this.#db = db;
    this.#path = options.path;
    try {
      const tables = nameSqliteTables(prefix);
      const version = runInTransaction(db, () => createSqliteSchema(db, tables));
      if (version > sqliteSchemaVersion) {
        throw new Error(
          `schema version ${version} is newer than this library's ${sqliteSchemaVersion}`,
        );
      }
      this.#sql = prepareSqliteStatements(db, tables);
      runInTransaction(db, () => this.#purge());
    } catch (error) {
      db.close();
      throw toUnavailable('open', error, options.path);
    }
  }

  /** The default lease of a claim, in milliseconds. */
  get leaseMs(): number {
    return this.#options.leaseMs;
  }

  async claim(request: ClaimRequest): Promise<ClaimResult> {
    return this.#transaction('claim', () => {
      if (++this.#claimsSincePurge >= purgeEvery) this.#purge();
      const stored = this.#read(request.key);
      const plan = planClaim(stored, request, this.#now(), this.#options, this.#tokens.next());
      if (plan.write) this.#write(plan.write);
      return plan.result;
    });
  }

  async complete(key: string, token: string, result: StoredResult): Promise<void> {
    const stored = checkStoredResult(result);
    const completed = this.#transaction('complete', () => {
      const next = planComplete(this.#read(key), token, this.#now(), stored);
      if (next) this.#write(next);
      return next !== undefined;
    });
    if (!completed) throw new LeaseLostError(key);
  }

  async renew(key: string, token: string, leaseMs?: number | undefined): Promise<boolean> {
    return this.#transaction('renew', () => {
      const next = planRenew(this.#read(key), token, this.#now(), this.#options, leaseMs);
      if (next) this.#write(next);
      return next !== undefined;
    });
  }

  async release(key: string, token: string): Promise<boolean> {
    return this.#transaction('release', () => {
      const plan = planRelease(this.#read(key), token, this.#now());
      if (!plan.released) return false;
      if (plan.write) this.#write(plan.write);
      else this.#sql.deleteRecord.run(key);
      return true;
    });
  }

  async markUncertain(key: string, token: string, note?: string | undefined): Promise<boolean> {
    return this.#transaction('markUncertain', () => {
      const next = planMarkUncertain(this.#read(key), token, this.#now(), note);
      if (next) this.#write(next);
      return next !== undefined;
    });
  }

  async get(key: string): Promise<LedgerRecord | undefined> {
    return this.#run('get', () => {
      const stored = this.#read(key);
      if (!stored || isPastRetention(stored, this.#now(), this.#options.retentionMs)) {
        return undefined;
      }
      return toLedgerRecord(stored);
    });
  }

  async addRepair(runId: string, fingerprint: string): Promise<number> {
    return this.#run('addRepair', () =>
      Number(this.#sql.addRepair.get(runId, fingerprint, this.#now())?.count),
    );
  }

  async getRepairs(runId: string, fingerprint: string): Promise<number> {
    return this.#run('getRepairs', () =>
      Number(this.#sql.readRepairs.get(runId, fingerprint)?.count ?? 0),
    );
  }

  async addFact<K extends RunFactKind>(
    runId: string,
    kind: K,
    id: string,
    fact: RunFacts[K],
  ): Promise<boolean> {
    const json = serializeRunFact(kind, id, fact);
    return this.#run(
      'addFact',
      () => Number(this.#sql.addFact.run(runId, kind, id, json, this.#now()).changes) === 1,
    );
  }

  async listFacts(runId: string): Promise<RunFactLists> {
    return this.#run('listFacts', () => {
      const lists = createRunFactLists();
      for (const row of this.#sql.listFacts.all(runId)) {
        pushRunFact(lists, String(row.kind), String(row.data));
      }
      return lists;
    });
  }

  async close(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
  }

  #now(): number {
    return this.#options.clock.now();
  }

  #read(key: string): StoredRecord | undefined {
    const row = this.#sql.readRecord.get(key);
    return row ? readRecordRow(row) : undefined;
  }

  #write(record: StoredRecord): void {
    this.#sql.writeRecord.run(...toRecordParameters(record));
  }

  #purge(): void {
    this.#claimsSincePurge = 0;
    const { retentionMs } = this.#options;
    this.#sql.purgeRecords.run(retentionMs, this.#now(), retentionMs, this.#now());
  }

  /** One read-decide-write step under the write lock; failures become LedgerUnavailableError. */
  #transaction<T>(operation: string, work: () => T): T {
    return this.#run(operation, () => runInTransaction(this.#db, work));
  }

  #run<T>(operation: string, work: () => T): T {
    try {
      return work();
    } catch (error) {
      throw toUnavailable(operation, error, this.#path);
    }
  }
}

// node:sqlite is synchronous: every method has its answer before it returns, so the
// runtime sets no deadline on it (a busy lock is bounded by `busyTimeoutMs` instead).
markAnswersAtOnce(SqliteLedger.prototype);
