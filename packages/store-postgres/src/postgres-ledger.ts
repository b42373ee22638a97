import { createHash, randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import {
  type ClaimRequest,
  type ClaimResult,
  checkStoredResult,
  createRunFactLists,
  type FactWatch,
  LeaseLostError,
  type Ledger,
  type LedgerRecord,
  LedgerUnavailableError,
  pushRunFact,
  type ResolvedLedgerOptions,
  type RunFactKind,
  type RunFactLists,
  type RunFacts,
  resolveLeaseMs,
  resolveLedgerOptions,
  type StoredResult,
  serializeRunFact,
} from '@recourse/core/store';
import { Pool, type QueryResultRow } from 'pg';
import {
  isRowPastRetention,
  type RecordRow,
  toLedgerRecord,
  toRowResult,
} from './postgres-codec.js';
import { PostgresFactWatchHub } from './postgres-fact-watch.js';
import {
  defaultTable,
  type PostgresLedgerOptions,
  validatePostgresTarget,
} from './postgres-ledger-options.js';
import { createTableNames, createTables, type TableNames } from './postgres-schema.js';
import { createStatements, type LedgerStatements } from './postgres-statements.js';
import { postgresTarget, toLedgerError } from './to-ledger-error.js';

// A claim that loses a race re-reads the row; the row can only move on so many times.
const maxClaimRounds = 8;
// Records past retention are deleted every so many claims (see `sweep`).
const sweepEvery = 1_000;
const defaultWatchHeartbeatMs = 5_000;

/**
 * A ledger in PostgreSQL, shared by any number of processes. A claim is one
 * `INSERT … ON CONFLICT DO UPDATE … WHERE <takeover allowed>`, so of concurrent claimers
 * exactly one gets the row; `complete`, `release` and `markUncertain` are conditional
 * on the claim's fencing token. Tables are created on first use (or by `migrate()`).
 */
export class PostgresLedger implements Ledger {
  readonly name = 'postgres';
  readonly #pool: Pool;
  readonly #owned: boolean;
  readonly #timings: ResolvedLedgerOptions;
  readonly #schema: string | undefined;
  readonly #names: TableNames;
  readonly #sql: LedgerStatements;
  readonly #watchHeartbeatMs: number;
  #ready: Promise<void> | undefined;
  /** False once the server or a pooler refused a named statement: all go unnamed. */
  #named = true;
  #claimsSinceSweep = 0;
  #watches: PostgresFactWatchHub | undefined;
  #closed = false;
  /** host:port, for errors. */
  readonly #target: string | undefined;

  constructor(options: PostgresLedgerOptions) {
    validatePostgresTarget(options);
    this.#timings = resolveLedgerOptions(options);
    this.#schema = options.schema;
    this.#names = createTableNames(options.table ?? defaultTable, options.schema);
    this.#sql = createStatements(this.#names);
    this.#owned = options.pool === undefined;
    this.#pool = options.pool ?? createOwnedPool(options.connectionString);
    this.#target = postgresTarget(this.#pool.options);
    this.#watchHeartbeatMs = options.watchHeartbeatMs ?? defaultWatchHeartbeatMs;
  }

  /** The default lease of a claim, in milliseconds. */
  get leaseMs(): number {
    return this.#timings.leaseMs;
  }

  /** Creates the tables now instead of on first use. Safe to call from many processes. */
  async migrate(): Promise<void> {
    this.#ready ??= createTables(this.#pool, this.#names, this.#schema).catch((error: unknown) => {
      this.#ready = undefined; // let a later call try again once the server is back
      throw error;
    });
    try {
      await this.#ready;
    } catch (error) {
      throw toLedgerError(error, this.#target);
    }
  }

  /**
   * Deletes records past retention and returns how many. Runs by itself every
   * 1 000 claims of this ledger; call it from a scheduled job for tighter bounds.
   */
  async sweep(): Promise<number> {
    this.#claimsSinceSweep = 0;
    const deleted = await this.#query(this.#sql.sweep, [this.#now(), this.#timings.retentionMs]);
    return deleted.rowCount ?? 0;
  }

  async claim(request: ClaimRequest): Promise<ClaimResult> {
    const leaseMs = resolveLeaseMs(request.leaseMs, this.#timings);
    if (++this.#claimsSinceSweep >= sweepEvery) {
      // Garbage collection only: a failed sweep must not fail the claim.
      await this.sweep().catch(() => 0);
    }
    for (let round = 0; round < maxClaimRounds; round++) {
      const now = this.#now();
      const token = randomUUID();
      const { rows } = await this.#query<{ token: string; previous: string | null }>(
        this.#sql.claim,
        [request.key, request.payloadHash, token, now, now + leaseMs, this.#timings.retentionMs],
      );
      const won = rows[0];
      if (won) {
        return won.previous === 'uncertain' || won.previous === 'expired'
          ? { status: 'acquired', token, previous: won.previous }
          : { status: 'acquired', token };
      }
      const settled = await this.#readSettled(request, now);
      if (settled) return settled;
      // The row changed between the two statements (released, marked): claim again.
    }
    throw new LedgerUnavailableError('postgres', `claim of ${request.key} did not settle`, {
      target: this.#target,
    });
  }

  async complete(key: string, token: string, result: StoredResult): Promise<void> {
    const { json, unstorable } = checkStoredResult(result);
    const updated = await this.#query(this.#sql.complete, [
      key,
      token,
      json ?? null,
      unstorable ?? null,
      this.#now(),
    ]);
    if (updated.rowCount) return;
    const done = await this.#query(this.#sql.isCompletedBy, [key, token]);
    if (!done.rowCount) throw new LeaseLostError(key);
  }

  async renew(key: string, token: string, leaseMs?: number | undefined): Promise<boolean> {
    const renewedMs = resolveLeaseMs(leaseMs, this.#timings);
    const now = this.#now();
    const renewed = await this.#query(this.#sql.renew, [
      key,
      token,
      now,
      now + renewedMs,
      this.#timings.retentionMs,
    ]);
    return Boolean(renewed.rowCount);
  }

  async release(key: string, token: string): Promise<boolean> {
    const freed = await this.#query(this.#sql.releaseFree, [key, token]);
    if (freed.rowCount) return true;
    const doubted = await this.#query(this.#sql.releaseDoubtful, [key, token, this.#now()]);
    return Boolean(doubted.rowCount);
  }

  async markUncertain(key: string, token: string, note?: string | undefined): Promise<boolean> {
    const marked = await this.#query(this.#sql.markUncertain, [
      key,
      token,
      this.#now(),
      note ?? null,
    ]);
    return Boolean(marked.rowCount);
  }

  async get(key: string): Promise<LedgerRecord | undefined> {
    const { rows } = await this.#query<RecordRow>(this.#sql.select, [key]);
    const row = rows[0];
    if (!row || isRowPastRetention(row, this.#now(), this.#timings.retentionMs)) return undefined;
    return toLedgerRecord(row);
  }

  async addRepair(runId: string, fingerprint: string): Promise<number> {
    const { rows } = await this.#query<{ count: string }>(this.#sql.addRepair, [
      runId,
      fingerprint,
      this.#now(),
    ]);
    return Number(rows[0]?.count ?? 0);
  }

  async getRepairs(runId: string, fingerprint: string): Promise<number> {
    const { rows } = await this.#query<{ count: string }>(this.#sql.repairs, [runId, fingerprint]);
    return Number(rows[0]?.count ?? 0);
  }

  async addFact<K extends RunFactKind>(
    runId: string,
    kind: K,
    id: string,
    fact: RunFacts[K],
  ): Promise<boolean> {
    const json = serializeRunFact(kind, id, fact);
    const added = await this.#query(this.#sql.addFact, [
      runId,
      kind,
      id,
      json,
      this.#now(),
      this.#names.channel,
    ]);
    return added.rowCount === 1;
  }

  async listFacts(runId: string): Promise<RunFactLists> {
    const { rows } = await this.#query<{ kind: string; data: string }>(this.#sql.listFacts, [
      runId,
    ]);
    const lists = createRunFactLists();
    for (const row of rows) pushRunFact(lists, row.kind, row.data);
    return lists;
  }

  /**
   * Pushes new facts of the run through LISTEN/NOTIFY: `addFact` notifies the table's
   * channel with the run id in the statement that inserts the fact. The first watch takes
   * one connection from the pool and holds it for LISTEN while any watch of this ledger is
   * open (every watch shares it); it goes back, destroyed, when the last watch closes.
   */
  watchFacts(runId: string, onChange: () => void): FactWatch {
    if (this.#closed) return { live: false, close() {} };
    this.#watches ??= new PostgresFactWatchHub({
      connect: () => this.#pool.connect(),
      channel: this.#names.channel,
      heartbeatMs: this.#watchHeartbeatMs,
    });
    return this.#watches.watch(runId, onChange);
  }

  /** Releases the watch connection, and ends the pool the ledger created; a pool you passed in stays open. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#watches?.close();
    this.#watches = undefined;
    if (!this.#owned || this.#pool.ended) return;
    await this.#pool.end();
    await socketsClosed(this.#pool);
  }

  /** The outcome of a claim that did not win the upsert, or undefined to claim again. */
  async #readSettled(request: ClaimRequest, now: number): Promise<ClaimResult | undefined> {
    const { rows } = await this.#query<RecordRow>(this.#sql.select, [request.key]);
    const row = rows[0];
    if (!row || isRowPastRetention(row, now, this.#timings.retentionMs)) return undefined;
    if (row.payload_hash !== request.payloadHash) return { status: 'conflict' };
    if (row.state === 'completed') return { status: 'completed', result: toRowResult(row) };
    const leaseExpiresAt = Number(row.lease_expires_at ?? 0);
    if (row.state === 'in_flight' && now < leaseExpiresAt) {
      return { status: 'in_flight', leaseExpiresAt };
    }
    return undefined;
  }

  /**
   * A statement of the ledger, as a named (prepared) statement: PostgreSQL parses and plans
   * it once per connection instead of on every call (a claim's upsert took as long to plan
   * as to run: unnamed, claims ran at 0.55–0.6 of a plain insert, named at 1.0). A server
   * or pooler that refuses named statements (PgBouncer in transaction mode before 1.21
   * answers that one does not exist, or exists already) gets every statement unnamed from
   * then on; the refused one never ran, so it is sent again unnamed.
   */
  async #query<Row extends QueryResultRow = QueryResultRow>(text: string, values: unknown[]) {
    await this.migrate();
    try {
      if (this.#named) {
        try {
          return await this.#pool.query<Row>({ name: statementName(text), text, values });
        } catch (error) {
          if (!isNamedStatementRefused(error)) throw error;
          this.#named = false;
        }
      }
      return await this.#pool.query<Row>(text, values);
    } catch (error) {
      throw toLedgerError(error, this.#target);
    }
  }

  #now(): number {
    return this.#timings.clock.now();
  }
}

/**
 * A pool that reports a dead or silent server within seconds (a query that timed out may
 * still have run: a claim then stays in flight until its lease ends, the safe direction)
 * and survives idle clients dying.
 */
function createOwnedPool(connectionString: string): Pool {
  const pool = new Pool({
    connectionString,
    connectionTimeoutMillis: 5_000,
    query_timeout: 10_000,
    max: 10,
  });
  // An idle client whose backend dies emits 'error' on the pool; unhandled, it would
  // crash the process. The next query reports the outage as LedgerUnavailableError.
  pool.on('error', () => {});
  // Each client's socket, until it is closed: `pool.end()` resolves when the clients said
  // goodbye, a moment before their sockets are closed (see `socketsClosed`).
  const sockets = new Set<Socket>();
  pool.on('connect', (client) => {
    const socket = (client as unknown as { connection?: { stream?: Socket } }).connection?.stream;
    if (!socket || socket.destroyed) return;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  openSockets.set(pool, sockets);
  return pool;
}

const openSockets = new WeakMap<Pool, Set<Socket>>();

const statementNames = new Map<string, string>();

/** A name for a statement's text, the same in every process (texts name their tables). */
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `recourse_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
    statementNames.set(text, name);
  }
  return name;
}

/** 26000: no such prepared statement; 42P05: it exists already (a pooler switched sessions). */
function isNamedStatementRefused(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '26000' || code === '42P05';
}

/**
 * Resolves once every socket of an owned pool that ended is closed (so that nothing of the
 * ledger is left open when `close()` resolves); after `boundMs` at the latest.
 */
function socketsClosed(pool: Pool, boundMs = 2_000): Promise<void> {
  const sockets = [...(openSockets.get(pool) ?? [])].filter((socket) => !socket.closed);
  if (sockets.length === 0) return Promise.resolve();
  return new Promise((resolve) => {
    let left = sockets.length;
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(done, boundMs);
    timer.unref?.();
    for (const socket of sockets)
      socket.once('close', () => {
        if (--left === 0) done();
      });
  });
}
