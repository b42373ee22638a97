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

/** Everything `decideRecovery` needs. Mirrors the seed's `Failure` dataclass. */
export interface DecisionState {
  tool: string;
  failureClass: FailureClass;
  /** This attempt may have changed the outside world. */
  sideEffects: boolean;
  /** A key a replay can safely run behind (the downstream honours it). */
  checkpoint?: string | undefined;
  /** A reconcile function exists for this tool. */
  reconcilable?: boolean | undefined;
  /** A fallback exists for this tool. */
  hasFallback?: boolean | undefined;
  /** Attempts made so far of this call (1 after the first failure). */
  attempts: number;
  /** Repairs already spent on this failure fingerprint. */
  repairAttempts: number;
  retryAfterMs?: number | undefined;
}

export interface RecoveryBudgets {
  /** Attempts of one call, the first included. Default 3. */
  maxAttempts?: number | undefined;
  /** Repairs per failure fingerprint. Default 2. */
  repairBudget?: number | undefined;
}

/** What to do, and why. `delayMs` is set for RETRY. */
export interface Decision {
  action: RecoveryAction;
  reason: string;
  /** Machine-readable reason: POISON, AUTHORIZATION_DENIED, RECONCILE_BY_HAND, ... */
  code: string;
  delayMs?: number | undefined;
  /** The decision ends the run (ABORT and blocks). */
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
