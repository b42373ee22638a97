import type { ClaimResult, StoredResult } from '../../ledger/ledger.js';
import type { Classification, Decision } from '../../types.js';
import { recover } from '../retry-loop.js';
import type { Call, CallEnding } from './call.js';
import { decideForCall } from './call.js';
import { parseStoredResult } from './serialise-result.js';

// What the ledger's answers other than `acquired` end a write with before anything is
// sent (a stored result, a key owned elsewhere), and its faults (retried in the one loop).

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
  // The ledger is no dependency with a budget: its faults are bounded by the attempts.
  const answer = await recover(
    {
      budget: undefined,
      dependency: 'ledger',
      decide: (facts) => decideForCall(call, classification, { attempts: tries, ...facts }),
      wait: async (delayMs) => {
        await run.clock.sleep(delayMs, call.request.signal);
        return true;
      },
    },
    classification,
    tries,
  );
  return answer.resend ? undefined : call.failed(classification, answer.decision, { error });
}

/**
 * A claim the store granted after the runtime stopped waiting for it: nothing ran under
 * it, so it is given back at once rather than left to expire into a doubt.
 */
export function releaseLate(late: ClaimResult, call: Call): void {
  if (late.status !== 'acquired') return;
  const { ledger, deadline } = call.run;
  void deadline.bound('release', ledger.release(call.key, late.token)).catch(() => {});
}

/** The operation completed before: its stored result, never a second execution. */
export function duplicate(call: Call, result: StoredResult): CallEnding {
  if (result.unstorable === undefined) {
    try {
      const value = parseStoredResult(result);
      call.emit('call.deduplicated', { source: 'ledger', input: call.request.input });
      return { ok: true, value, deduplicated: true, degraded: false };
    } catch {
      // Unreadable text from the store: as good as not stored.
    }
  }
  return ownedElsewhere(
    call,
    'UNKNOWN_OUTCOME',
    'RESULT_NOT_STORED',
    `the ${call.tool.name} operation completed, but its result was not stored (${result.unstorable ?? 'unreadable'})`,
  );
}

export function ownedElsewhere(
  call: Call,
  failureClass: Classification['failureClass'],
  code: 'IDEMPOTENCY_CONFLICT' | 'IN_FLIGHT' | 'RESULT_NOT_STORED',
  message: string,
  inFlight?: 'in-flight',
): CallEnding {
  const classification: Classification = { failureClass, code, message };
  const decision = decideForCall(call, classification);
  return inFlight
    ? call.ownedElsewhere(classification, decision)
    : call.failed(classification, decision);
}

/** A policy `key` function that throws: nothing is sent, and the model is told why. */
export function keyFailure(call: Call): CallEnding | undefined {
  try {
    void call.key;
    return undefined;
  } catch (error) {
    const classification: Classification = {
      failureClass: 'PERMANENT',
      code: 'KEY_FUNCTION_FAILED',
      message: call.run.classify(error).message,
    };
    const decision: Decision = {
      action: 'ABORT',
      code: 'KEY_FUNCTION_FAILED',
      reason: "the tool's key function threw, so the write has no idempotency key: not sent",
      terminal: true,
    };
    return { ok: false, kind: 'decided', classification, decision, error, inDoubt: false };
  }
}
