import type { RecoveryContract } from '../../contract/recovery-contract.js';
import type { Classification, Decision } from '../../types.js';

/** One tool call as an adapter hands it to the runtime. */
export interface ToolCallRequest {
  toolName: string;
  toolCallId: string;
  input: unknown;
  /** The run's abort signal: aborts backoff sleeps; the caller's abort is rethrown untouched. */
  signal?: AbortSignal | undefined;
  /**
   * Runs the tool once. `signal` is the caller's own, or with a `timeoutMs` one that also
   * aborts at the attempt's deadline: hand it to the tool.
   */
  execute: (input: unknown, signal: AbortSignal | undefined) => unknown;
  /**
   * The framework's own control flow thrown through the tool (a LangGraph `interrupt()`
   * that pauses the run for a human): rethrown untouched, never classified or counted. A
   * write's claim is let go, since the framework runs the tool again from its start when
   * it resumes, under the same key.
   */
  isPause?: ((error: unknown) => boolean) | undefined;
  /**
   * The turn (one model response) the call belongs to: any value that is the same for
   * every call of that response and differs between responses (compared with `===`).
   * Calls are handed over in the response's order. Without it the call waits for nothing.
   */
  turn?: unknown;
}

/** A call that ended without a result: what the model is told, and why. */
export type ToolCallFailure = {
  ok: false;
  contract: RecoveryContract;
  decision: Decision;
  classification: Classification;
  error?: unknown;
};

export type ToolCallSuccess = {
  ok: true;
  value: unknown;
  /** Answered from the ledger or a reconcile read: not executed again. */
  deduplicated: boolean;
  /** A declared fallback stood in: the model must be told (see `modelValue`). */
  degraded: boolean;
  /** With `degraded`: what the result lacks. */
  missingEvidence?: string | undefined;
};

export type ToolCallResult = ToolCallSuccess | ToolCallFailure;

/**
 * What the model receives for a successful call: the value, or for a fallback an explicit
 * degraded result: never stale data passed off as fresh.
 */
export function modelValue(result: ToolCallSuccess): unknown {
  if (!result.degraded) return result.value;
  return {
    status: 'PARTIAL_RESULT',
    confidence: 'LOW',
    missing_evidence: result.missingEvidence ? [result.missingEvidence] : [],
    result: result.value ?? null,
  };
}
