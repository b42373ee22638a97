import type { RecoveryContract } from '../../contract/recovery-contract.js';
import type { Classification, Decision } from '../../types.js';
import type { Terminal } from '../run/run-state.js';

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

/** The run must stop because of this call (or of what it found out). */
export type StopRequest = Terminal;

/** How a call ended with a value: exactly what the adapter gets back. */
export type CallSuccessEnding = ToolCallSuccess;

/** What every call that ended without a value carries: the contract and the run state need it. */
interface FailureFacts {
  ok: false;
  classification: Classification;
  decision: Decision;
  error?: unknown;
  /** The write's idempotency key, told to the model and, in doubt, to the outcome. */
  key?: string | undefined;
  /** The run stops because of this. */
  stop?: StopRequest | undefined;
}

/** The call ran (or tried to) and the policy decided how it ends. */
export interface DecidedEnding extends FailureFacts {
  kind: 'decided';
  /** Executions of the tool in this call. */
  attempts?: number | undefined;
  /** Repairs spent on this failure's fingerprint before this one. */
  repairAttempts?: number | undefined;
  /** The write may have landed: it stays in doubt. */
  inDoubt: boolean;
}

/** Another worker holds the write (in flight, or it took the lease over): the contract's `IN_FLIGHT`. */
export interface OwnedElsewhereEnding extends FailureFacts {
  kind: 'owned-elsewhere';
  attempts?: number | undefined;
  inDoubt: boolean;
}

/**
 * Refused before it ran: the closed resource. `block` records it as a block (a closed
 * resource), `counted` as a failure the model was told (a quarantined operation).
 */
export interface RefusedEnding extends FailureFacts {
  kind: 'refused';
  resource: string;
  block: boolean;
  counted: boolean;
}

/** How a call ended without a value: one of three endings, told apart by `kind`. */
export type CallFailureEnding = DecidedEnding | OwnedElsewhereEnding | RefusedEnding;

export type CallEnding = CallSuccessEnding | CallFailureEnding;

/** A call refused before it ran (see `RefusedEnding`). */
export function refusedEnding(
  classification: Classification,
  decision: Decision,
  resource: string,
  how: {
    block?: boolean;
    counted?: boolean;
    stop?: StopRequest | undefined;
    key?: string | undefined;
  },
): RefusedEnding {
  return {
    ok: false,
    kind: 'refused',
    classification,
    decision,
    resource,
    block: how.block === true,
    counted: how.counted === true,
    ...(how.stop ? { stop: how.stop } : {}),
    ...(how.key === undefined ? {} : { key: how.key }),
  };
}
