import {
  createRunFactLists,
  type LedgerRecord,
  type LedgerRecordState,
  pushRunFact,
  type RunFactLists,
  toStoredResult,
} from '@recourse/core/store';

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
  if (state === 'completed') record.result = toStoredResult(fields.result, fields.unstorable);
  if (state === 'in_flight') record.leaseExpiresAt = leaseExpiresAt;
  if (fields.note !== undefined) record.note = fields.note;
  return record;
}

/** A fact log entry: the kind, a space, the fact's JSON (kinds never contain a space). */
export function toFactEntry(kind: string, json: string): string {
  return `${kind} ${json}`;
}

export function parseFactLog(entries: string[]): RunFactLists {
  const lists = createRunFactLists();
  for (const entry of entries) {
    const space = entry.indexOf(' ');
    if (space > 0) pushRunFact(lists, entry.slice(0, space), entry.slice(space + 1));
  }
  return lists;
}
