import type { FailureClass, RecoveryAction } from '../types.js';

/** A call that failed at least once and then ended with a value: what recourse did. */
export interface Recovery {
  tool: string;
  tool_call_id: string;
  failure_class: FailureClass;
  /** The code of the first failure (TIMEOUT, HTTP_503, ...). */
  code: string;
  /** How it was recovered: RETRY, RECONCILE, REPLAY or FALLBACK. */
  action: RecoveryAction;
  /** Executions of the tool in that call. */
  attempts: number;
}

/** The plan's versions: each REPLAN closes one and opens the next, with what invalidated it. */
export interface PlanVersions {
  version: number;
  history: {
    version: number;
    invalidated_by: { tool: string; code: string; observation: string };
  }[];
}

/** The run's explicit status: completed, degraded, terminal. */
export interface Outcome {
  status: 'COMPLETED' | 'PARTIAL_RESULT' | 'BLOCKED' | 'FAILED';
  /** Why the run is not COMPLETED: AUTHORIZATION_DENIED, POISON, RECONCILE_BY_HAND, ... */
  reason?: string | undefined;
  summary: string;
  /** Each completed operation once (a read tool once), however many calls asked for it. */
  completed_steps: string[];
  next_possible_action?: string | undefined;
  /** PARTIAL_RESULT: what the result lacks. */
  missing_evidence?: string[] | undefined;
  confidence?: 'LOW' | 'MEDIUM' | 'HIGH' | undefined;
  /** Writes whose outcome is in doubt and were not re-sent. */
  needs_reconciliation?: { tool: string; idempotency_key: string; code?: string }[] | undefined;
  /** Calls that were refused, by resource. */
  blocked?: { tool: string; resource: string; reason: string }[] | undefined;
  /** Failures the model was told about, in order. */
  failures: { tool: string; failure_class: string; code: string; recovery: string }[];
  /** Calls that failed and then succeeded, and how. */
  recoveries: Recovery[];
  plan: PlanVersions;
  /** After `recovery.compensate()`: writes undone, by tool name, in the order tried. */
  compensated?: string[] | undefined;
  /**
   * After `recovery.compensate()`: compensations that failed (the write may still stand),
   * and writes the run no longer held to undo (`forgotten`).
   */
  failed?: string[] | undefined;
  /** After `recovery.compensate()`: completed writes without a `compensate` function. */
  not_compensable?: string[] | undefined;
  /**
   * After `recovery.compensate()`, when a long run had dropped writes with a compensation
   * (past the newest 10,000 it keeps): how many. Named in `failed`; they still stand.
   */
  forgotten?: number | undefined;
}
