/** What kind of failure a thrown value is. Decides which recoveries are allowed. */
export const failureClasses = [
  'TRANSIENT',
  'VALIDATION',
  'AUTHORIZATION',
  'STALE_STATE',
  'UNKNOWN_OUTCOME',
  'PERMANENT',
] as const;
export type FailureClass = (typeof failureClasses)[number];

/** What the policy decided to do about a failure. */
export const recoveryActions = [
  'RETRY',
  'REPAIR',
  'REPLAY',
  'RECONCILE',
  'REOBSERVE',
  'REPLAN',
  'FALLBACK',
  'ABORT',
] as const;
export type RecoveryAction = (typeof recoveryActions)[number];

/** The result of `classifyFailure`: data, never an exception. */
export interface Classification {
  failureClass: FailureClass;
  /** Finer, stable reason: TIMEOUT, RATE_LIMITED, CONNECTION_REFUSED, HTTP_404, ... */
  code: string;
  /** Redacted, size-bounded, single-line text of the error. Safe to show a model. */
  message: string;
  /** HTTP status when one was found anywhere in the error or its causes. */
  status?: number | undefined;
  /** How long the server asked us to wait, from Retry-After style headers. */
  retryAfterMs?: number | undefined;
  /** Which recogniser decided (`builtin:http`, a user recogniser's name, ...). */
  source?: string | undefined;
  /** The offending input field, when the error names one (validation errors). */
  field?: string | undefined;
}

/**
 * The classification codes the policy itself acts on, each a fact: another worker owns the
 * write (`LEASE_LOST`, `IN_FLIGHT`) or its result is elsewhere (`RESULT_NOT_STORED`), the
 * key belongs to another payload (`IDEMPOTENCY_CONFLICT`), the store is down and nothing
 * was sent (`LEDGER_UNAVAILABLE`). Every other code is detail for the model and the trace.
 */
export const policyFacts = [
  'LEASE_LOST',
  'IN_FLIGHT',
  'RESULT_NOT_STORED',
  'IDEMPOTENCY_CONFLICT',
  'LEDGER_UNAVAILABLE',
] as const;
export type PolicyFact = (typeof policyFacts)[number];

/** The fact a classification code states, when it is one the policy acts on. */
export function policyFactOf(code: string | undefined): PolicyFact | undefined {
  return (policyFacts as readonly (string | undefined)[]).includes(code)
    ? (code as PolicyFact)
    : undefined;
}

/** Everything `decideRecovery` needs: the facts of one failed attempt. */
export interface DecisionState {
  tool: string;
  failureClass: FailureClass;
  /** An attempt may have changed the outside world: the operation is in doubt. */
  inDoubt?: boolean | undefined;
  /**
   * The CONTRACT's name for `inDoubt` (the same fact; `inDoubt` wins when both are given).
   * Not the tool's declared `sideEffects` policy: a declared write that provably changed
   * nothing is not in doubt.
   */
  sideEffects?: boolean | undefined;
  /** The idempotency key a replay can safely run behind (the downstream honours it). */
  checkpointKey?: string | undefined;
  /** The CONTRACT's name for `checkpointKey` (the same key; `checkpointKey` wins). */
  checkpoint?: string | undefined;
  /** A reconcile function exists for this tool. */
  reconcilable?: boolean | undefined;
  /** A fallback exists for this tool. */
  hasFallback?: boolean | undefined;
  /** Attempts made so far of this call (1 after the first failure). */
  attempts: number;
  /** Repairs already spent on this failure fingerprint. */
  repairAttempts: number;
  /**
   * The ledger could not say how many repairs were spent (it failed, or did not answer
   * in time): a failure that is not TRANSIENT may be poison, so nothing more is sent.
   */
  repairsUnknown?: boolean | undefined;
  retryAfterMs?: number | undefined;
  /**
   * The classification code. The policy reads only the codes that are facts
   * (`PolicyFact`, see `policyFacts`); the rest is detail.
   */
  code?: string | undefined;
  /** A reconcile read answered: the write did not happen, or the read itself failed. */
  reconciled?: 'not_happened' | 'failed' | undefined;
  /** The dependency's retry budget refused this retry (an outage): retries must stop... */
  retryBudgetExhausted?: boolean | undefined;
  /** ...unless the budget says when it will let one through (its next probe), in ms. */
  retryBudgetWaitMs?: number | undefined;
  /** Milliseconds since this call first failed, for the time budget. */
  elapsedMs?: number | undefined;
  /**
   * What the run has left of its time (`deadlineMs`), when it has a deadline: recovery
   * then spends the run's time, not the call's. Absent: the call's own budgets apply.
   */
  timeLeftMs?: number | undefined;
}

export interface RecoveryBudgets {
  /** Attempts of one call, the first included. Default 3. */
  maxAttempts?: number | undefined;
  /** Repairs per failure fingerprint. Default 2. */
  repairBudget?: number | undefined;
}

/** Why the policy decided what it did: stable, machine-readable. */
export const decisionCodes = [
  'RETRY',
  'REPAIR',
  'REPLAY',
  'RECONCILE',
  'REOBSERVE',
  'REPLAN',
  'FALLBACK',
  'FALLBACK_FAILED',
  'POISON',
  'AUTHORIZATION_DENIED',
  'RECONCILE_BY_HAND',
  'RECONCILE_FAILED',
  'ATTEMPTS_EXHAUSTED',
  'DEPENDENCY_RETRY_BUDGET_EXHAUSTED',
  'RETRY_AFTER_TOO_LONG',
  'TIME_BUDGET_EXHAUSTED',
  'LEDGER_UNAVAILABLE',
  'KEY_FUNCTION_FAILED',
  'IDEMPOTENCY_CONFLICT',
  'IN_FLIGHT',
  'LEASE_LOST',
  'RESULT_NOT_STORED',
  'RUN_STOPPED',
  'SCOPE_DENY',
  'SCOPE_NOT_ALLOWED',
  'DENIED_EARLIER',
  'APPROVAL_REQUESTED',
  'APPROVAL_DECLINED',
  'MODEL_UNAVAILABLE',
  'MODEL_QUOTA_EXCEEDED',
] as const;
export type DecisionCode = (typeof decisionCodes)[number];

/** What to do, and why. `delayMs` is set for RETRY and REPLAY. */
export interface Decision {
  action: RecoveryAction;
  reason: string;
  code: DecisionCode;
  delayMs?: number | undefined;
  /** The decision ends the call for good: ABORT (a stop of the run unless the run says otherwise). */
  terminal: boolean;
}

/** JSON-compatible value. Results stored in a ledger must be of this shape. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | JsonValue[]
  | { [key: string]: JsonValue };
