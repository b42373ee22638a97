import type { Classification, Decision } from '../../types.js';
import type { Call } from './call.js';
import type { CallFailureEnding, StopRequest } from './call-ending.js';

export interface FailureDetails {
  error?: unknown;
  repairAttempts?: number | undefined;
  status?: 'IN_FLIGHT' | undefined;
  stop?: StopRequest | undefined;
}

/**
 * How a call ends without a value. The claim, if still held, is settled on the way out
 * of the call (in doubt → uncertain, else released), so no path forgets it.
 */
export function failure(
  call: Call,
  classification: Classification,
  decision: Decision,
  details: FailureDetails = {},
): CallFailureEnding {
  return {
    ok: false,
    classification,
    decision,
    inDoubt: call.inDoubt,
    ...(details.error === undefined ? {} : { error: details.error }),
    ...(call.attempts > 0 ? { attempts: call.attempts } : {}),
    ...(details.repairAttempts === undefined ? {} : { repairAttempts: details.repairAttempts }),
    ...(call.tool.claims && call.knownKey ? { key: call.knownKey } : {}),
    ...(details.status ? { status: details.status } : {}),
    ...(details.stop ? { stop: details.stop } : {}),
  };
}
