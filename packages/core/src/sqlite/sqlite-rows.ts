import type { Denial } from '../ledger/ledger.js';
import type { StoredRecord } from '../ledger/record-rules.js';
import type { JsonValue } from '../types.js';

type Row = Record<string, unknown>;

const text = (value: unknown): string | undefined => (value === null ? undefined : String(value));
const integer = (value: unknown): number | undefined =>
  value === null || value === undefined ? undefined : Number(value);

export function readRecordRow(row: Row): StoredRecord {
  return {
    key: String(row.key),
    state: String(row.state) as StoredRecord['state'],
    payloadHash: String(row.payload_hash),
    token: String(row.token),
    result: row.result === null ? undefined : (JSON.parse(String(row.result)) as JsonValue),
    leaseExpiresAt: integer(row.lease_expires_at),
    note: text(row.note),
    inDoubt: Number(row.in_doubt) === 1,
    updatedAt: Number(row.updated_at),
  };
}

/** Parameters in the column order of the records table. */
export function toRecordParameters(record: StoredRecord): (string | number | null)[] {
  return [
    record.key,
    record.state,
    record.payloadHash,
    record.token,
    record.result === undefined ? null : JSON.stringify(record.result),
    record.leaseExpiresAt ?? null,
    record.note ?? null,
    record.inDoubt ? 1 : 0,
    record.updatedAt,
  ];
}

export function readDenialRow(row: Row): Denial {
  const denial: Denial = {
    resource: String(row.resource),
    tool: String(row.tool),
    reason: String(row.reason),
    at: Number(row.at),
  };
  if (row.capability !== null) denial.capability = String(row.capability);
  return denial;
}

export function toCapabilityKey(capability: string | undefined): string {
  return capability === undefined ? '' : `=${capability}`;
}
