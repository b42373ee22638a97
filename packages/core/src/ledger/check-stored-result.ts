import { InvalidOptionsError } from '../errors.js';
import type { StoredResult } from './ledger.js';

/**
 * The result a store is asked to keep, as exactly two optional strings. Anything else is
 * a caller's bug, rejected naming the field: stored, it would come back as a different
 * result (or as "returned nothing") to every duplicate.
 */
export function checkStoredResult(result: StoredResult): StoredResult {
  if (typeof result !== 'object' || result === null) {
    throw new InvalidOptionsError('result', 'must be an object { json?, unstorable? }');
  }
  const checked: StoredResult = {};
  for (const field of ['json', 'unstorable'] as const) {
    const value: unknown = result[field];
    if (value === undefined) continue;
    if (typeof value !== 'string') {
      throw new InvalidOptionsError(`result.${field}`, `must be a string, got ${typeof value}`);
    }
    checked[field] = value;
  }
  return checked;
}
