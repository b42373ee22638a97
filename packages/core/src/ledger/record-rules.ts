import { InvalidOptionsError } from '../errors.js';
import type {
  ClaimRequest,
  ClaimResult,
  LedgerRecord,
  LedgerRecordState,
  StoredResult,
} from './ledger.js';

/**
 * A ledger record as stores keep it: the public `LedgerRecord` plus the fencing token
 * and whether an earlier attempt may already have written (`inDoubt`).
 *
 * The rules below are pure functions of (stored record, request, now), so that every
 * store that can read and write one record atomically (a Map, a SQLite or PostgreSQL
 * transaction, a Redis script port) applies exactly the same semantics.
 */
export interface StoredRecord {
  key: string;
  state: LedgerRecordState;
  payloadHash: string;
  /** The token of the latest claim. Only it may complete, release or mark the key. */
  token: string;
  result?: StoredResult | undefined;
  leaseExpiresAt?: number | undefined;
  note?: string | undefined;
  /** An earlier attempt may have written: a release goes back to `uncertain`, not free. */
  inDoubt: boolean;
  updatedAt: number;
}

export interface RecordTimings {
  leaseMs: number;
  retentionMs: number;
}

/** Past retention a record counts as absent. In-flight records age from their lease end. */
export function isPastRetention(record: StoredRecord, now: number, retentionMs: number): boolean {
  const since =
    record.state === 'in_flight' ? (record.leaseExpiresAt ?? record.updatedAt) : record.updatedAt;
  return now >= since + retentionMs;
}

export interface ClaimPlan {
  result: ClaimResult;
  /** The record to store; absent when the claim changes nothing. */
  write?: StoredRecord | undefined;
}

export function planClaim(
  stored: StoredRecord | undefined,
  request: ClaimRequest,
  now: number,
  timings: RecordTimings,
  token: string,
): ClaimPlan {
  const leaseMs = resolveLeaseMs(request.leaseMs, timings);
  const current = stored && !isPastRetention(stored, now, timings.retentionMs) ? stored : undefined;
  if (current && current.payloadHash !== request.payloadHash) {
    return { result: { status: 'conflict' } };
  }
  if (current?.state === 'completed') {
    return { result: { status: 'completed', result: { ...current.result } } };
  }
  const leaseExpiresAt = current?.leaseExpiresAt ?? 0;
  if (current?.state === 'in_flight' && now < leaseExpiresAt) {
    return { result: { status: 'in_flight', leaseExpiresAt } };
  }
  // Free, uncertain, or in flight with a dead claimer: this claim takes the key.
  const previous =
    current?.state === 'uncertain'
      ? 'uncertain'
      : current?.state === 'in_flight'
        ? 'expired'
        : undefined;
  const write: StoredRecord = {
    key: request.key,
    state: 'in_flight',
    payloadHash: request.payloadHash,
    token,
    leaseExpiresAt: now + leaseMs,
    note: current?.note,
    inDoubt: previous !== undefined,
    updatedAt: now,
  };
  const result: ClaimResult = previous
    ? { status: 'acquired', token, previous }
    : { status: 'acquired', token };
  return { result, write };
}

/** The completed record, or undefined when `token` no longer owns the key (lease lost). */
export function planComplete(
  stored: StoredRecord | undefined,
  token: string,
  now: number,
  result: StoredResult,
): StoredRecord | undefined {
  if (!stored || stored.token !== token) return undefined;
  if (stored.state === 'completed') return stored;
  return {
    key: stored.key,
    state: 'completed',
    payloadHash: stored.payloadHash,
    token,
    result,
    inDoubt: false,
    updatedAt: now,
  };
}

/**
 * The record with its lease extended to now + `leaseMs`, or undefined when `token` does
 * not hold an in-flight claim of the key (taken over, completed, uncertain, released or
 * past retention): then nothing changes.
 */
export function planRenew(
  stored: StoredRecord | undefined,
  token: string,
  now: number,
  timings: RecordTimings,
  leaseMs?: number | undefined,
): StoredRecord | undefined {
  const renewedMs = resolveLeaseMs(leaseMs, timings);
  if (!stored || stored.token !== token || stored.state !== 'in_flight') return undefined;
  if (isPastRetention(stored, now, timings.retentionMs)) return undefined;
  return { ...stored, leaseExpiresAt: now + renewedMs, updatedAt: now };
}

/** A per-call lease, or the store's; rejects nonsense naming the field. */
export function resolveLeaseMs(leaseMs: number | undefined, timings: RecordTimings): number {
  const resolved = leaseMs ?? timings.leaseMs;
  if (typeof resolved !== 'number' || !Number.isFinite(resolved) || resolved <= 0) {
    throw new InvalidOptionsError(
      'leaseMs',
      `must be a positive number of milliseconds, got ${resolved}`,
    );
  }
  return resolved;
}

/** `null` frees the key; a record puts an in-doubt key back to `uncertain`. */
export type ReleasePlan = { released: false } | { released: true; write: StoredRecord | null };

export function planRelease(
  stored: StoredRecord | undefined,
  token: string,
  now: number,
): ReleasePlan {
  if (!stored || stored.token !== token || stored.state !== 'in_flight') return { released: false };
  if (!stored.inDoubt) return { released: true, write: null };
  return { released: true, write: toUncertain(stored, now, stored.note) };
}

export function planMarkUncertain(
  stored: StoredRecord | undefined,
  token: string,
  now: number,
  note: string | undefined,
): StoredRecord | undefined {
  if (!stored || stored.token !== token || stored.state === 'completed') return undefined;
  return toUncertain(stored, now, note ?? stored.note);
}

function toUncertain(stored: StoredRecord, now: number, note: string | undefined): StoredRecord {
  return {
    key: stored.key,
    state: 'uncertain',
    payloadHash: stored.payloadHash,
    token: stored.token,
    note,
    inDoubt: true,
    updatedAt: now,
  };
}

/** The public view of a stored record (no token). */
export function toLedgerRecord(stored: StoredRecord): LedgerRecord {
  const record: LedgerRecord = {
    key: stored.key,
    state: stored.state,
    payloadHash: stored.payloadHash,
    updatedAt: stored.updatedAt,
  };
  if (stored.state === 'completed') record.result = { ...stored.result };
  if (stored.state === 'in_flight') record.leaseExpiresAt = stored.leaseExpiresAt;
  if (stored.note !== undefined) record.note = stored.note;
  return record;
}

/**
 * The fencing tokens of one ledger instance: a random prefix (64 bits) and a counter, so
 * that tokens never repeat across instances or processes, for an increment per claim
 * instead of a UUID (a random draw and a string of ~20 pieces).
 */
export class ClaimTokens {
  readonly #prefix = Array.from(globalThis.crypto.getRandomValues(new Uint8Array(8)), (byte) =>
    byte.toString(16).padStart(2, '0'),
  ).join('');
  #count = 0;

  next(): string {
    return `${this.#prefix}.${(++this.#count).toString(36)}`;
  }
}

/** A fresh fencing token. Random, so that tokens never repeat across processes. */
export function createToken(): string {
  const token = globalThis.crypto.randomUUID();
  // randomUUID's string is a rope of ~20 pieces (~480 B kept per record); reading a
  // character flattens it in place to ~36 bytes.
  token.charCodeAt(0);
  return token;
}

/** A stored result a store read back: only the two known fields, each a string or absent. */
export function toStoredResult(json: unknown, unstorable: unknown): StoredResult {
  const result: StoredResult = {};
  if (typeof json === 'string') result.json = json;
  if (typeof unstorable === 'string') result.unstorable = unstorable;
  return result;
}
