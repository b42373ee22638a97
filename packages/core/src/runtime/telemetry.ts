import type { Classification, Decision, FailureClass, RecoveryAction } from '../types.js';
import type { CallEnding } from './call/call.js';
import type { ModelRequest } from './model/model-request.js';

/** What a call tells its tracing span. Implemented over OpenTelemetry in `trace/`. */
export interface CallSpan {
  /** Runs `fn` in the span's context, so the tool's own spans nest under this one. */
  run<T>(fn: () => T): T;
  /** A retry was scheduled after `attempt`. */
  retry(attempt: number, delayMs: number): void;
  /** The caller aborted the call: what it had done by then. */
  abort(facts: CallAbortFacts): void;
  /** The call ended: status, error type, recovery action, attempts. */
  end(ending: CallEnding, facts: CallSpanFacts): void;
}

export interface CallSpanFacts {
  attempts: number;
  /** A write's idempotency key. */
  key?: string | undefined;
  /** A call that failed and then got its value: its first failure's class and the recovery. */
  recovered?: { failureClass: FailureClass; action: RecoveryAction } | undefined;
}

export interface CallAbortFacts {
  attempts: number;
  /** A write's idempotency key. */
  key?: string | undefined;
  /** The last failure before the abort and the decision taken on it (a retry waiting, a reconcile read). */
  failure?: { failureClass: FailureClass; action: RecoveryAction } | undefined;
}

/** What a model request tells its tracing span. */
export interface ModelSpan {
  /** Runs one attempt of the request in the span's context. */
  run<T>(fn: () => T): T;
  /** A retry was scheduled after `attempt` failed with `classification`. */
  retry(attempt: number, delayMs: number, classification: Classification): void;
  /** The caller aborted the request. */
  abort(error: unknown): void;
  /** The request ended: with a value (no argument) or with the failure that ended it. */
  end(failure?: { classification: Classification; decision: Decision } | undefined): void;
}

/**
 * Starts a span per wrapped call and per model request, or answers undefined when
 * nothing records (no tracer, no meter provider): then nothing is built.
 */
export interface Telemetry {
  /** Positional, like `startModel`: asking costs no allocation when nothing records. */
  start(runId: string, toolName: string, toolCallId: string): CallSpan | undefined;
  /** Positional, so that asking costs no allocation when nothing records. */
  startModel(runId: string, request: ModelRequest | undefined): ModelSpan | undefined;
}
