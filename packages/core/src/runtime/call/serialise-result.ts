import { readString } from '../../classify/safe-read.js';
import type { StoredResult } from '../../ledger/ledger.js';
import { describeLossyValue, holdsLossyValue } from './find-lossy-value.js';

/**
 * A result as the ledger stores it: JSON text, nothing for `undefined`, or, when JSON
 * cannot hold the value, a note saying what and where instead of a lossy copy. "Cannot
 * hold" covers what makes `JSON.stringify` throw (a BigInt, a cycle, a throwing `toJSON`)
 * and what it silently drops or flattens (a function, a symbol, NaN, a Map or Set or Error
 * written as `{}`, a typed array written as an object of indices): a duplicate handed that
 * copy would get a wrong result, so it is told to re-read instead (RESULT_NOT_STORED).
 * Values with their own `toJSON` (a Date) are trusted to serialise themselves.
 */
export function serialiseResult(value: unknown): StoredResult {
  if (value === undefined) return {};
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    return { unstorable: `the result ${describeLossyValue(value) ?? rejected(error)}` };
  }
  let lossy: boolean;
  try {
    lossy = json === undefined || holdsLossyValue(value, json.length);
  } catch {
    lossy = true; // a value that throws when read a second time is not one to replay
  }
  if (lossy) {
    return {
      unstorable: `the result ${describeLossyValue(value) ?? 'holds a value JSON would not keep'}`,
    };
  }
  return { json };
}

function rejected(error: unknown): string {
  const message = readString(error, 'message') ?? 'a throw';
  return /circular/i.test(message)
    ? 'holds a cycle'
    : `holds a value JSON.stringify rejects (${message.slice(0, 200)})`;
}

/** A stored result back as a value. */
export function parseStoredResult(result: StoredResult): unknown {
  return result.json === undefined ? undefined : JSON.parse(result.json);
}
