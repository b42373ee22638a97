import type { Classification, FailureClass } from '../types.js';
import type { FailureFacts } from './failure-facts.js';

/** What a recogniser says about an error: at least its class, optionally the rest. */
export type RecognisedFailure = Partial<Classification> & { failureClass: FailureClass };

/**
 * A user-supplied rule, consulted before the built-in ones. Return `undefined` to pass.
 * Its `failureClass` is taken as given (the side-effect hint does not change it); a
 * recogniser that throws or answers nonsense is skipped.
 */
export interface Recogniser {
  name: string;
  recognise(facts: FailureFacts, error: unknown): RecognisedFailure | undefined;
}

/** Extra context about the failed call. */
export interface ClassifyHints {
  /**
   * The call may have written before it failed (a write, or a tool that declared nothing):
   * an ambiguous failure is then UNKNOWN_OUTCOME, not PERMANENT.
   */
  mayWrite?: boolean | undefined;
  /** The CONTRACT's name for `mayWrite` (`classifyFailure(error, { sideEffects })`): the same hint. */
  sideEffects?: boolean | undefined;
}

/** The may-write hint, under either of its names. */
export function mayWriteOf(hints: ClassifyHints | undefined): boolean {
  return hints?.mayWrite ?? hints?.sideEffects === true;
}
