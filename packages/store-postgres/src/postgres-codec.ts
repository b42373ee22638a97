import type { Denial, JsonValue, LedgerRecord, LedgerRecordState } from '@recourse/core';

/** A records row as `pg` returns it (bigint columns arrive as strings). */
export interface RecordRow {
  key: string;
  state: LedgerRecordState;
  payload_hash: string;
  lease_expires_at: string | null;
  result: JsonValue | null;
  note: string | null;
  updated_at: string;
}

export interface DenialRow {
  resource: string;
  capability: string | null;
  tool: string;
  reason: string;
  at: number;
}

/** Past retention a record counts as absent; in-flight records age from their lease end. */
export function isRowPastRetention(row: RecordRow, now: number, retentionMs: number): boolean {
  const leaseEnd = row.lease_expires_at === null ? undefined : Number(row.lease_expires_at);
  const since =
    row.state === 'in_flight' ? (leaseEnd ?? Number(row.updated_at)) : Number(row.updated_at);
  return now >= since + retentionMs;
}

export function toLedgerRecord(row: RecordRow): LedgerRecord {
  const record: LedgerRecord = {
    key: row.key,
    state: row.state,
    payloadHash: row.payload_hash,
    updatedAt: Number(row.updated_at),
  };
  if (row.state === 'completed') record.result = row.result;
  if (row.state === 'in_flight' && row.lease_expires_at !== null) {
    record.leaseExpiresAt = Number(row.lease_expires_at);
  }
  if (row.note !== null) record.note = row.note;
  return record;
}

export function toDenial(row: DenialRow): Denial {
  const denial: Denial = { resource: row.resource, tool: row.tool, reason: row.reason, at: row.at };
  if (row.capability !== null) denial.capability = row.capability;
  return denial;
}

/** Unique per capability, and distinct from "no capability" (which is the empty string). */
export function toCapabilityKey(capability: string | undefined): string {
  return capability === undefined ? '' : `:${capability}`;
}
