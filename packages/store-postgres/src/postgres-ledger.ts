import { randomUUID } from 'node:crypto';
import {
  type ClaimRequest,
  type ClaimResult,
  checkCounterStep,
  type Denial,
  type JsonValue,
  LeaseLostError,
  type Ledger,
  type LedgerRecord,
  LedgerUnavailableError,
  type ResolvedLedgerOptions,
  resolveLeaseMs,
  resolveLedgerOptions,
} from '@recourse/core';
import { Pool, type QueryResultRow } from 'pg';
import {
  type DenialRow,
  isRowPastRetention,
  type RecordRow,
  toCapabilityKey,
  toDenial,
  toLedgerRecord,
} from './postgres-codec.js';
import {
  defaultTable,
  type PostgresLedgerOptions,
  validatePostgresTarget,
} from './postgres-ledger-options.js';
import { createTableNames, createTables, type TableNames } from './postgres-schema.js';
import { createStatements, type LedgerStatements } from './postgres-statements.js';
import { toLedgerError } from './to-ledger-error.js';

// A claim that loses a race re-reads the row; the row can only move on so many times.
const maxClaimRounds = 8;
// Records past retention are deleted every so many claims (see `sweep`).
const sweepEvery = 1_000;

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
  #ready: Promise<void> | undefined;
  #claimsSinceSweep = 0;

  constructor(options: PostgresLedgerOptions) {
    validatePostgresTarget(options);
    this.#timings = resolveLedgerOptions(options);
    this.#schema = options.schema;
    this.#names = createTableNames(options.table ?? defaultTable, options.schema);
    this.#sql = createStatements(this.#names);
    this.#owned = options.pool === undefined;
    this.#pool = options.pool ?? createOwnedPool(options.connectionString);
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
      throw toLedgerError(error);
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
    throw new LedgerUnavailableError('postgres', `claim of ${request.key} did not settle`);
  }

  async complete(key: string, token: string, result: JsonValue): Promise<void> {
    const json = JSON.stringify(result) ?? 'null';
    const updated = await this.#query(this.#sql.complete, [key, token, json, this.#now()]);
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

  async incrementCounter(runId: string, name: string, by = 1): Promise<number> {
    checkCounterStep(by);
    const { rows } = await this.#query<{ value: number }>(this.#sql.increment, [runId, name, by]);
    return Number(rows[0]?.value ?? 0);
  }

  async getCounter(runId: string, name: string): Promise<number> {
    const { rows } = await this.#query<{ value: number }>(this.#sql.counter, [runId, name]);
    return Number(rows[0]?.value ?? 0);
  }

  async addDenial(runId: string, denial: Denial): Promise<void> {
    await this.#query(this.#sql.addDenial, [
      runId,
      denial.resource,
      denial.capability ?? null,
      toCapabilityKey(denial.capability),
      denial.tool,
      denial.reason,
      denial.at,
    ]);
  }

  async listDenials(runId: string): Promise<Denial[]> {
    const { rows } = await this.#query<DenialRow>(this.#sql.listDenials, [runId]);
    return rows.map(toDenial);
  }

  /** Ends the pool the ledger created; a pool you passed in stays open. */
  async close(): Promise<void> {
    if (this.#owned && !this.#pool.ended) await this.#pool.end();
  }

  /** The outcome of a claim that did not win the upsert, or undefined to claim again. */
  async #readSettled(request: ClaimRequest, now: number): Promise<ClaimResult | undefined> {
    const { rows } = await this.#query<RecordRow>(this.#sql.select, [request.key]);
    const row = rows[0];
    if (!row || isRowPastRetention(row, now, this.#timings.retentionMs)) return undefined;
    if (row.payload_hash !== request.payloadHash) return { status: 'conflict' };
    if (row.state === 'completed') return { status: 'completed', result: row.result };
    const leaseExpiresAt = Number(row.lease_expires_at ?? 0);
    if (row.state === 'in_flight' && now < leaseExpiresAt) {
      return { status: 'in_flight', leaseExpiresAt };
    }
    return undefined;
  }

  async #query<Row extends QueryResultRow = QueryResultRow>(text: string, values: unknown[]) {
    await this.migrate();
    try {
      return await this.#pool.query<Row>(text, values);
    } catch (error) {
      throw toLedgerError(error);
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
  return pool;
}
