/** The run's explicit status (seed 004's terminal and degraded states). */
export interface Outcome {
  status: 'COMPLETED' | 'PARTIAL_RESULT' | 'BLOCKED' | 'FAILED';
  /** Why the run is not COMPLETED: AUTHORIZATION_DENIED, POISON, RECONCILE_BY_HAND, ... */
  reason?: string | undefined;
  summary: string;
  completed_steps: string[];
  next_possible_action?: string | undefined;
  /** PARTIAL_RESULT: what the result lacks. */
  missing_evidence?: string[] | undefined;
  confidence?: 'LOW' | 'MEDIUM' | 'HIGH' | undefined;
  /** Writes whose outcome is in doubt and were not re-sent. */
  needs_reconciliation?: { tool: string; idempotency_key: string }[] | undefined;
  /** Calls that were refused, by resource. */
  blocked?: { tool: string; resource: string; reason: string }[] | undefined;
  /** Failures the model was told about, in order. */
  failures: { tool: string; failure_class: string; code: string; recovery: string }[];
}
