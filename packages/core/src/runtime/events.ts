import type { Denial } from '../ledger/ledger.js';
import type { Classification, Decision } from '../types.js';
import type { Outcome } from './outcome.js';
import type { RecoveryContract } from './recovery-contract.js';

interface CallEventBase {
  runId: string;
  tool: string;
  toolCallId: string;
  idempotencyKey: string;
  at: number;
}

/** Everything the runtime observes and decides, for logs, traces and counters. */
export type RecoveryEvent =
  | (CallEventBase & { type: 'call.started'; attempt: number; input: unknown })
  | (CallEventBase & { type: 'call.succeeded'; attempt: number; degraded: boolean })
  | (CallEventBase & { type: 'call.deduplicated'; source: 'ledger' | 'reconcile' })
  | (CallEventBase & { type: 'call.in-flight' })
  | (CallEventBase & {
      type: 'failure.classified';
      attempt: number;
      classification: Classification;
      error: unknown;
    })
  | (CallEventBase & {
      type: 'decision.made';
      attempt: number;
      decision: Decision;
      fingerprint: string;
      repairAttempts: number;
    })
  | (CallEventBase & { type: 'retry.scheduled'; attempt: number; delayMs: number })
  | (CallEventBase & { type: 'reconcile.finished'; happened: boolean })
  | (CallEventBase & { type: 'fallback.used'; reason: string })
  | (CallEventBase & { type: 'call.blocked'; resource: string; reason: string; input?: unknown })
  | (CallEventBase & { type: 'call.failed'; contract: RecoveryContract })
  | { type: 'denial.recorded'; runId: string; denial: Denial; at: number }
  | { type: 'access.granted'; runId: string; resource: string; grantedBy: string; at: number }
  | { type: 'run.stopped'; runId: string; outcome: Outcome; at: number };

export type RecoveryEventType = RecoveryEvent['type'];
export type EventListener = (event: RecoveryEvent) => void;
