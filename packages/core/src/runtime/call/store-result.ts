import type { Call } from './call.js';
import { serialiseResult } from './serialise-result.js';

/**
 * Completes the call's claim with its result, the one way a result reaches the ledger (a
 * write's own success, a reconcile that found the write happened, an undo): when JSON
 * cannot hold the value the record says why, and a `result.unstorable` event says so.
 */
export async function completeWithResult(call: Call, value: unknown): Promise<void> {
  const stored = serialiseResult(value);
  await call.settle('complete', stored);
  if (stored.unstorable !== undefined)
    call.emit('result.unstorable', { reason: stored.unstorable });
}
