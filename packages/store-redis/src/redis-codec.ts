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
 * A record is one Redis string: a JSON object with the fields state, payloadHash, token,
 * leaseExpiresAt, result (the caller's JSON text, absent when the tool returned nothing),
 * unstorable (why a completed result was not stored), note, inDoubt ('1' when an earlier
 * attempt may have written; absent is '0') and updatedAt. Every value is a string, numbers
 * too (the scripts' `cjson` would print a number with 14 significant digits). Earlier
 * versions kept the same fields in a hash; both read as the same field map.
 */
export type RecordFields = Record<string, string>;

/**
 * The record a claim of a free key writes, with `SET … NX` and no script. Written out by
 * hand, a fifth of the cost of `JSON.stringify` on an object (the claim's hot path): the
 * token (base64url and base 36) and the times need no escaping.
 */
export function encodeInFlightRecord(
  payloadHash: string,
  token: string,
  leaseExpiresAt: number,
  updatedAt: number,
): string {
  return `{"state":"in_flight","payloadHash":${JSON.stringify(wellFormed(payloadHash))},"token":"${token}","leaseExpiresAt":"${leaseExpiresAt}","updatedAt":"${updatedAt}"}`;
}

const loneSurrogate = /[\uD800-\uDFFF]/u;

/**
 * A lone surrogate would reach the scripts as a \u escape that cjson cannot decode;
 * through UTF-8 it becomes the U+FFFD that ioredis sends for it as a script argument.
 */
function wellFormed(text: string): string {
  return loneSurrogate.test(text) ? Buffer.from(text).toString() : text;
}

/** The fields of a record's JSON text (only string values count, as in a hash). */
export function decodeRecord(text: string): RecordFields {
  const fields: RecordFields = {};
  for (const [name, value] of Object.entries(JSON.parse(text) as Record<string, unknown>)) {
    if (typeof value === 'string') fields[name] = value;
  }
  return fields;
}

/**
 * The public view of a record, or undefined when there is none or it is past
 * retention (in-flight records age from the end of their lease, as in the core rules).
 */
export function parseRecord(
  key: string,
  fields: RecordFields,
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
