import type { Recovery } from '../../contract/outcome.js';
import type { Classification, Decision } from '../../types.js';
import type { Terminal } from '../run/run-state.js';

/** The run must stop because of this call (or of what it found out). */
export type StopRequest = Terminal;

/** How a call ended with a value: what `conclude` records and hands back. */
export interface CallSuccessEnding {
  ok: true;
  value: unknown;
  /** Answered from the ledger or a reconcile read: not executed again. */
  deduplicated: boolean;
  /** A declared fallback stood in. */
  degraded: boolean;
  missingEvidence?: string | undefined;
  /** The call failed before it got its value: how recourse recovered it. */
  recovery?: Recovery | undefined;
  /** A write's idempotency key: its operation counts once in the outcome. */
  operation?: string | undefined;
}

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
  /** Refused before it ran: the closed resource, and whether it is a block to record. */
  refusal?: { resource: string; block: boolean } | undefined;
  /** The contract's status when not the usual FAILED/BLOCKED. */
  status?: 'IN_FLIGHT' | undefined;
  /** The run stops because of this. */
  stop?: StopRequest | undefined;
}

export type CallEnding = CallSuccessEnding | CallFailureEnding;
