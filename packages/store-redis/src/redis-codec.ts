import type { Denial, LedgerRecord, LedgerRecordState } from '@recourse/core';

const states: readonly string[] = ['in_flight', 'completed', 'uncertain'];

function isState(value: string | undefined): value is LedgerRecordState {
  return value !== undefined && states.includes(value);
}

/**
 * The public view of a record hash, or undefined when there is none or it is past
 * retention (in-flight records age from the end of their lease, as in the core rules).
 */
export function parseRecord(
  key: string,
  fields: Record<string, string>,
  now: number,
  retentionMs: number,
): LedgerRecord | undefined {
  const state = fields.state;
  if (!isState(state)) return undefined;
  const updatedAt = Number(fields.updatedAt);
  const leaseExpiresAt =
    fields.leaseExpiresAt === undefined ? undefined : Number(fields.leaseExpiresAt);
  const since = state === 'in_flight' ? (leaseExpiresAt ?? updatedAt) : updatedAt;
  if (now >= since + retentionMs) return undefined;
  const record: LedgerRecord = { key, state, payloadHash: fields.payloadHash ?? '', updatedAt };
  if (state === 'completed') record.result = JSON.parse(fields.result ?? 'null');
  if (state === 'in_flight') record.leaseExpiresAt = leaseExpiresAt;
  if (fields.note !== undefined) record.note = fields.note;
  return record;
}

export function serializeDenial(denial: Denial): string {
  const { resource, capability, tool, reason, at } = denial;
  return JSON.stringify(
    capability === undefined
      ? { resource, tool, reason, at }
      : { resource, capability, tool, reason, at },
  );
}

export function parseDenial(text: string): Denial {
  return JSON.parse(text) as Denial;
}
