import type { Clock } from '../clock.js';
import type { FailureClass } from '../types.js';

/**
 * The ledger remembers what a run did, so that a write happens at most once per
 * idempotency key across retries, replays, model turns, workers and restarts, and so
 * that what a run learned (repair counts per failure fingerprint, denied resources,
 * grants, poisoned operations, escalations) survives too.
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
  complete(key: string, token: string, result: StoredResult): Promise<void>;

  /**
   * Extends the lease of an `in_flight` claim held by `token` to now + `leaseMs` (the
   * store's `leaseMs` when omitted), so that no other worker takes the key over while a
   * slow write is still working. Returns false and changes nothing when `token` is not
   * the current claim's (taken over: fencing) or the record is not in flight. A lease
   * that ran out but was not taken over yet is renewed, as `complete` still succeeds
   * then. Optional for third-party stores; without it, leases are never renewed.
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

  /** Adds one repair to a failure fingerprint of a run and returns the new count. */
  addRepair(runId: string, fingerprint: string): Promise<number>;

  /** Repairs spent on a failure fingerprint of a run (0 when none). */
  getRepairs(runId: string, fingerprint: string): Promise<number>;

  /**
   * Records a fact the run learned. Idempotent per (run, kind, id): the first record
   * stays. Resolves to true when the fact is new.
   */
  addFact<K extends RunFactKind>(
    runId: string,
    kind: K,
    id: string,
    fact: RunFacts[K],
  ): Promise<boolean>;

  /** Every fact recorded for the run, by kind, each list oldest first, as copies. */
  listFacts(runId: string): Promise<RunFactLists>;

  /**
   * Optional push: calls `onChange` soon after any handle (this process or another)
   * adds a fact to the run, and whenever the watch (re)connects, since facts may have
   * been missed meanwhile. While `live` is false the runtime reads facts on every call;
   * while it is true it trusts its cache, so a call costs no store round trip.
   */
  watchFacts?(runId: string, onChange: () => void): FactWatch;

  /**
   * Releases connections (a store without any resolves at once). Required, so that
   * `await ledger.close()` works on any `Ledger`.
   */
  close(): Promise<void>;
}

export interface FactWatch {
  /** True while changes are delivered: the subscription is confirmed and connected. */
  readonly live: boolean;
  close(): void;
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
  | { status: 'completed'; result: StoredResult }
  | { status: 'in_flight'; leaseExpiresAt: number }
  | { status: 'conflict' };

/**
 * What a completed write left, as the store keeps it: the result as JSON text (parsed
 * only when a duplicate asks for it), nothing (the tool returned `undefined`), or a note
 * that the write completed but its result could not be stored (JSON cannot hold it).
 */
export interface StoredResult {
  /** The result, serialised with `JSON.stringify`. Absent: the tool returned nothing. */
  json?: string | undefined;
  /** Set when the write completed but its result was not stored: why. */
  unstorable?: string | undefined;
}

export type LedgerRecordState = 'in_flight' | 'completed' | 'uncertain';

export interface LedgerRecord {
  key: string;
  state: LedgerRecordState;
  payloadHash: string;
  /** For `completed`. */
  result?: StoredResult | undefined;
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

/** An operator's decision to open one resource (and what lies below it) for the run. */
export interface AccessGrant {
  /** Canonical resource string; `*` (everything) can never be granted. */
  resource: string;
  /** Who decided: an operator id, an approval id. Required so the decision is attributable. */
  grantedBy: string;
  reason?: string | undefined;
  at: number;
}

/** An operation (tool + canonical input) whose failure survived the repair budget. */
export interface PoisonedOperation {
  /** Hash of the tool name and the canonical input. */
  operation: string;
  tool: string;
  failureClass: FailureClass;
  /** The classification code of the failure that kept repeating. */
  code: string;
  fingerprint: string;
  at: number;
}

/** Resources a blocked call was escalated for: what an operator's answer may grant. */
export interface Escalation {
  toolCallId: string;
  tool: string;
  resources: string[];
  at: number;
}

/** The facts a run learns, by kind. */
export interface RunFacts {
  denial: Denial;
  grant: AccessGrant;
  poison: PoisonedOperation;
  escalation: Escalation;
}

export type RunFactKind = keyof RunFacts;

/** A run's facts, every kind present (an empty list when none). */
export type RunFactLists = { [K in RunFactKind]: RunFacts[K][] };

export const runFactKinds: readonly RunFactKind[] = ['denial', 'grant', 'poison', 'escalation'];

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
