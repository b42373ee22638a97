import type { Classification, Decision } from '../types.js';
import type { RecoveryContract } from './recovery-contract.js';

/** One tool call as an adapter hands it to the runtime. */
export interface ToolCallRequest {
  toolName: string;
  toolCallId: string;
  input: unknown;
  /** The run's abort signal: aborts backoff sleeps; the caller's abort is rethrown untouched. */
  signal?: AbortSignal | undefined;
  execute: (input: unknown) => unknown;
}

/** A call that ended without a result: what the model is told, and why. */
export type ToolCallFailure = {
  ok: false;
  contract: RecoveryContract;
  decision: Decision;
  classification: Classification;
  error?: unknown;
};

export type ToolCallResult =
  | { ok: true; value: unknown; deduplicated: boolean; degraded: boolean }
  | ToolCallFailure;
