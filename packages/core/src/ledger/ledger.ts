import type { Clock } from '../clock.js';
import type { JsonValue } from '../types.js';

/**
 * The ledger remembers what a run did, so that a write happens at most once per
 * idempotency key across retries, replays, model turns, workers and restarts, and so
 * that what a run learned (repair counts per failure fingerprint, denied resources)
 * survives too.
 *
 * Every store (memory, SQLite, Redis, PostgreSQL) implements this interface and passes
 * the contract suite in `@recourse/core/testing` (`describeLedgerContract`).
 */
export interface Ledger {
  /** Short store name used in errors and events: `memory`, `sqlite`, `redis`, `postgres`. */
  readonly name: string;

  /**
   * The store's default lease in milliseconds (its `leaseMs` option), so that a claimer
   * knows how often to renew. Stores that omit it are assumed to use `defaultLeaseMs`.
   */
  readonly leaseMs?: number | undefined;

  /**
   * Claims `key` before executing a write. Atomic: of any number of concurrent claims of
   * one key (in one process or many), exactly one gets `acquired`.
   *
   * - no record, or a record past its retention → `acquired`
   * - `in_flight` with a live lease → `in_flight`
   * - `in_flight` with an expired lease (the claimer died) → `acquired` with
   *   `previous: 'expired'` (the write may have landed: reconcile or replay, never blind)
   * - `uncertain` (a previous attempt's outcome is in doubt) → `acquired` with
   *   `previous: 'uncertain'`
   * - `completed` → `completed` with the stored result
   * - any record whose `payloadHash` differs → `conflict` (IETF Idempotency-Key draft: 422)
   */
  claim(request: ClaimRequest): Promise<ClaimResult>;

  /**
   * Stores the result and marks the key completed. Rejects with `LeaseLostError` when
   * `token` is not the current claim's (a newer claimer owns the key: fencing).
   */
  complete(key: string, token: string, result: JsonValue): Promise<void>;

  /**
   * Extends the lease of an `in_flight` claim held by `token` to now + `leaseMs` (the
   * store's `leaseMs` when omitted): the heartbeat of a claimer whose write runs longer
   * than a lease, so that no other worker takes the key over while it is still working.
   * Returns false and changes nothing when `token` is not the current claim's (taken
   * over: fencing) or the record is not in flight (completed, uncertain, released). A
   * lease that ran out but was not taken over yet is renewed, as `complete` still
   * succeeds then. Optional, so that older third-party stores still type-check; without
   * it, leases are never renewed.
   */
  renew?(key: string, token: string, leaseMs?: number | undefined): Promise<boolean>;

  /**
   * Gives up a claim whose attempt provably changed nothing: the key becomes free again.
   * A stale token is ignored (returns false).
   */
  release(key: string, token: string): Promise<boolean>;

  /**
   * Records that the attempt's outcome is in doubt (a write that may have landed). The
   * key stays in doubt for every later claimer until someone completes it. A stale
   * token is ignored (returns false).
   */
  markUncertain(key: string, token: string, note?: string | undefined): Promise<boolean>;

  /** The current record of `key`, if any and not past retention. */
  get(key: string): Promise<LedgerRecord | undefined>;

  /** Adds `by` (default 1) to a named counter of a run and returns the new value. */
  incrementCounter(runId: string, name: string, by?: number | undefined): Promise<number>;

  /** The current value of a named counter of a run (0 when never incremented). */
  getCounter(runId: string, name: string): Promise<number>;

  /** Remembers a denied resource for the run. Idempotent per (resource, capability). */
  addDenial(runId: string, denial: Denial): Promise<void>;

  /** Every denial recorded for the run, oldest first. */
  listDenials(runId: string): Promise<Denial[]>;

  /** Releases connections. Stores without connections may omit it. */
  close?(): Promise<void>;
}

export interface ClaimRequest {
  key: string;
  /** Hash of the canonical payload. A different hash under the same key is a conflict. */
  payloadHash: string;
  /** Overrides the store's `leaseMs` for this claim. */
  leaseMs?: number | undefined;
}

export type ClaimResult =
  | {
      status: 'acquired';
      /** Fencing token: only this claim may complete, release or mark the key. */
      token: string;
      /** Set when a previous attempt may already have written. */
      previous?: 'uncertain' | 'expired' | undefined;
    }
  | { status: 'completed'; result: JsonValue }
  | { status: 'in_flight'; leaseExpiresAt: number }
  | { status: 'conflict' };

export type LedgerRecordState = 'in_flight' | 'completed' | 'uncertain';

export interface LedgerRecord {
  key: string;
  state: LedgerRecordState;
  payloadHash: string;
  result?: JsonValue | undefined;
  /** For `in_flight`: when another worker may take the claim over. */
  leaseExpiresAt?: number | undefined;
  note?: string | undefined;
  updatedAt: number;
}

/** A resource the run was refused, remembered so no other route reaches it. */
export interface Denial {
  /** Canonical resource string (see `urlResource`, `pathResource`, `shellResources`). */
  resource: string;
  capability?: string | undefined;
  /** The tool whose call was refused. */
  tool: string;
  /** The classification code or the scope rule that denied it. */
  reason: string;
  at: number;
}

/** Options every store accepts. */
export interface LedgerOptions {
  /** How long a claim stays in flight before another worker may take it over. Default 30 s. */
  leaseMs?: number | undefined;
  /** How long completed and uncertain records are kept. Default 24 h. */
  retentionMs?: number | undefined;
  /**
   * Time source for leases and retention. Default: the system clock. Workers sharing a
   * store compare lease times, so their clocks must agree to well under `leaseMs`.
   */
  clock?: Clock | undefined;
}

export const defaultLeaseMs = 30_000;
export const defaultRetentionMs = 24 * 60 * 60 * 1000;
