import {
  type LedgerRecord,
  type LedgerRecordState,
  type StoredResult,
  toStoredResult,
} from '@recourse/core/store';

/** A records row as `pg` returns it (bigint columns arrive as strings). */
export interface RecordRow {
  key: string;
  state: LedgerRecordState;
  payload_hash: string;
  lease_expires_at: string | null;
  result_json: string | null;
  result_unstorable: string | null;
  note: string | null;
  updated_at: string;
}

/** Past retention a record counts as absent; in-flight records age from their lease end. */
export function isRowPastRetention(row: RecordRow, now: number, retentionMs: number): boolean {
  const leaseEnd = row.lease_expires_at === null ? undefined : Number(row.lease_expires_at);
  const since =
    row.state === 'in_flight' ? (leaseEnd ?? Number(row.updated_at)) : Number(row.updated_at);
  return now >= since + retentionMs;
}

export function toRowResult(row: RecordRow): StoredResult {
  return toStoredResult(row.result_json, row.result_unstorable);
}

export function toLedgerRecord(row: RecordRow): LedgerRecord {
  const record: LedgerRecord = {
    key: row.key,
    state: row.state,
    payloadHash: row.payload_hash,
    updatedAt: Number(row.updated_at),
  };
  if (row.state === 'completed') record.result = toRowResult(row);
  if (row.state === 'in_flight' && row.lease_expires_at !== null) {
    record.leaseExpiresAt = Number(row.lease_expires_at);
  }
  if (row.note !== null) record.note = row.note;
  return record;
}
