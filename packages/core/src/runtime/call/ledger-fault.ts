import type { Classification } from '../../types.js';
import type { Call } from './call.js';
import type { CallEnding } from './call-ending.js';
import { decideForCall } from './decide-for-call.js';
import { failure } from './fail-call.js';

/**
 * The ledger threw or did not answer (`ledgerTimeoutMs`) before anything was sent: a
 * transient fault of the store, asked again after a backoff within the call's attempts.
 * Resolves to undefined to ask again, or to how the call ends once it stays unreachable:
 * `LEDGER_UNAVAILABLE`, never executed (fail closed).
 */
export async function ledgerFault(
  call: Call,
  error: unknown,
  tries: number,
): Promise<CallEnding | undefined> {
  const { run } = call;
  const classification: Classification = {
    failureClass: 'TRANSIENT',
    code: 'LEDGER_UNAVAILABLE',
    message: run.classify(error).message,
  };
  const decision = decideForCall(call, classification, { attempts: tries });
  if (decision.action !== 'RETRY') return failure(call, classification, decision, { error });
  await run.clock.sleep(decision.delayMs ?? 0, call.request.signal);
  return undefined;
}
