import type { FailureClass, RecoveryAction } from '../types.js';
import type { CallEnding } from './call/call-ending.js';

/** What a call tells its tracing span. Implemented over OpenTelemetry in `trace/`. */
export interface CallSpan {
  /** Runs `fn` in the span's context, so the tool's own spans nest under this one. */
  run<T>(fn: () => T): T;
  /** A retry was scheduled after `attempt`. */
  retry(attempt: number, delayMs: number): void;
  /** The caller aborted the call. */
  abort(error: unknown): void;
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

/** Starts a span per wrapped call, or undefined when nothing records spans. */
export interface Telemetry {
  start(call: { runId: string; toolName: string; toolCallId: string }): CallSpan | undefined;
}
