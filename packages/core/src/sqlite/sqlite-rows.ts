import type { StoredRecord } from '../ledger/record-rules.js';
import { toStoredResult } from '../ledger/record-rules.js';

type Row = Record<string, unknown>;

const text = (value: unknown): string | undefined => (value === null ? undefined : String(value));
const integer = (value: unknown): number | undefined =>
  value === null || value === undefined ? undefined : Number(value);

export function readRecordRow(row: Row): StoredRecord {
  const state = String(row.state) as StoredRecord['state'];
  return {
    key: String(row.key),
    state,
    payloadHash: String(row.payload_hash),
    token: String(row.token),
    result:
      state === 'completed' ? toStoredResult(row.result_json, row.result_unstorable) : undefined,
    leaseExpiresAt: integer(row.lease_expires_at),
    note: text(row.note),
    inDoubt: Number(row.in_doubt) === 1,
    updatedAt: Number(row.updated_at),
  };
}

/** Parameters in the column order of `writeRecord`. */
export function toRecordParameters(record: StoredRecord): (string | number | null)[] {
  return [
    record.key,
    record.state,
    record.payloadHash,
    record.token,
    record.result?.json ?? null,
    record.result?.unstorable ?? null,
    record.leaseExpiresAt ?? null,
    record.note ?? null,
    record.inDoubt ? 1 : 0,
    record.updatedAt,
  ];
}
