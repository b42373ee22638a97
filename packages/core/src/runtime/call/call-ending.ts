import type { Classification, Decision } from '../../types.js';
import type { Terminal } from '../run/run-state.js';
import type { ToolCallSuccess } from './tool-call.js';

/** The run must stop because of this call (or of what it found out). */
export type StopRequest = Terminal;

/** How a call ended with a value: exactly what the adapter gets back. */
export type CallSuccessEnding = ToolCallSuccess;

/** How a call ended without a value: the facts the contract and the run state need. */
export interface CallFailureEnding {
  ok: false;
  classification: Classification;
  decision: Decision;
  error?: unknown;
  /** Executions of the tool in this call. */
  attempts?: number | undefined;
  /** Repairs spent on this failure's fingerprint before this one. */
  repairAttempts?: number | undefined;
  /** The write's idempotency key, told to the model and, in doubt, to the outcome. */
  key?: string | undefined;
  /** The write may have landed: it stays in doubt. */
  inDoubt: boolean;
  /**
   * Refused before it ran: the closed resource; `block` records it as a block (a closed
   * resource), `counted` as a failure the model was told (a quarantined operation).
   */
  refusal?: { resource: string; block: boolean; counted?: boolean | undefined } | undefined;
  /** The contract's status when not the usual FAILED/BLOCKED. */
  status?: 'IN_FLIGHT' | undefined;
  /** The run stops because of this. */
  stop?: StopRequest | undefined;
}

export type CallEnding = CallSuccessEnding | CallFailureEnding;
