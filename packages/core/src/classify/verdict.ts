import type { FailureClass } from '../types.js';

/** A built-in recogniser's answer, before the side-effect hint is applied. */
export interface Verdict {
  failureClass: FailureClass;
  /** Stable reason: TIMEOUT, RATE_LIMITED, NOT_FOUND, ... */
  code: string;
  /**
   * The request may have reached the server and acted (timeouts, resets, 5xx): with
   * side effects the outcome is UNKNOWN_OUTCOME, not TRANSIENT.
   */
  ambiguous?: boolean | undefined;
}

export function transient(code: string, ambiguous = false): Verdict {
  return { failureClass: 'TRANSIENT', code, ambiguous };
}

export function verdict(failureClass: FailureClass, code: string): Verdict {
  return { failureClass, code };
}
