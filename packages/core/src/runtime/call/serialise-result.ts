import { readString } from '../../classify/safe-read.js';
import type { StoredResult } from '../../ledger/ledger.js';

/**
 * A result as the ledger stores it: JSON text, nothing for `undefined`, or, when JSON
 * cannot hold the value (a BigInt, function or symbol at any depth, a cycle, a throwing
 * `toJSON`), a note saying why instead of a silent `null`.
 */
export function serialiseResult(value: unknown): StoredResult {
  if (value === undefined) return {};
  let unstorable: string | undefined;
  const replacer = (_key: string, item: unknown) => {
    const kind = typeof item;
    if (kind === 'bigint' || kind === 'function' || kind === 'symbol') unstorable ??= `a ${kind}`;
    return kind === 'bigint' ? null : item;
  };
  let json: string | undefined;
  try {
    json = JSON.stringify(value, replacer);
  } catch (error) {
    const message = readString(error, 'message') ?? 'a throw';
    unstorable ??= /circular/i.test(message)
      ? 'a cycle'
      : `a value JSON.stringify rejects (${message.slice(0, 200)})`;
  }
  if (unstorable !== undefined || json === undefined) {
    return { unstorable: `the result holds ${unstorable ?? 'nothing JSON can hold'}` };
  }
  return { json };
}

/** A stored result back as a value. */
export function parseStoredResult(result: StoredResult): unknown {
  return result.json === undefined ? undefined : JSON.parse(result.json);
}
