import type { Outcome } from '../../contract/outcome.js';
import type { RecoveryContract } from '../../contract/recovery-contract.js';
import type { Denial } from '../../ledger/ledger.js';
import type { Classification, Decision } from '../../types.js';

interface CallEventBase {
  runId: string;
  tool: string;
  toolCallId: string;
  /** The operation's idempotency key (`''` for a read, whose key is never derived). */
  idempotencyKey: string;
  at: number;
}

/** Everything the runtime observes and decides, for logs, traces and counters. */
export type RecoveryEvent =
  | (CallEventBase & { type: 'call.started'; attempt: number; input: unknown })
  | (CallEventBase & { type: 'call.succeeded'; attempt: number; degraded: boolean })
  | (CallEventBase & {
      type: 'call.deduplicated';
      source: 'ledger' | 'reconcile';
      /** The call's input, when it was answered before it started. */
      input?: unknown;
    })
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
  | (CallEventBase & { type: 'reconcile.finished'; happened: boolean | 'invalid' })
  | (CallEventBase & { type: 'fallback.used'; reason: string })
  | (CallEventBase & { type: 'call.blocked'; resource: string; reason: string; input?: unknown })
  | (CallEventBase & { type: 'call.failed'; contract: RecoveryContract })
  | (CallEventBase & { type: 'result.unstorable'; reason: string })
  /**
   * The write completed and the caller got its result, but the ledger did not record it
   * (it failed, or did not answer within `ledgerTimeoutMs`): a duplicate finds the claim
   * in flight and, once its lease ran out, in doubt; it is never re-sent blindly.
   */
  | (CallEventBase & { type: 'result.not-stored'; reason: string })
  | (CallEventBase & {
      type: 'compensation.finished';
      status: 'compensated' | 'failed' | 'not_compensable';
    })
  | {
      /** `compensate()` found writes with a compensation the run no longer held: not undone. */
      type: 'compensation.forgotten';
      runId: string;
      count: number;
      tools: string[];
      /** How many undoable writes a run keeps (`maxUndoableWrites`). */
      kept: number;
      at: number;
    }
  | { type: 'policy.undeclared'; runId: string; tool: string; at: number }
  | { type: 'policy.unused'; runId: string; tool: string; suggestion?: string; at: number }
  /** A tool whose framework turns its failures into text before recourse sees them (once per tool). */
  | { type: 'tool.failures-hidden'; runId: string; tool: string; reason: string; at: number }
  /**
   * A policy's resource function threw (once per tool and run): its calls reach everything
   * (fail closed). `code` is a recourse error's code (`SHELL_PARSER_UNAVAILABLE`) or the
   * error's name; `message` is redacted and says how to fix it where recourse knows.
   */
  | {
      type: 'resource.failed';
      runId: string;
      tool: string;
      code: string;
      message: string;
      at: number;
    }
  | {
      type: 'plan.replanned';
      runId: string;
      from: number;
      to: number;
      tool: string;
      code: string;
      observation: string;
      at: number;
    }
  /**
   * The ledger could not be reached (or did not answer within `ledgerTimeoutMs`): once
   * per outage, when it starts. `target` is the SQLite file or host:port; `message` says
   * why (redacted). Calls that need the store retry within budget, then fail as
   * `LEDGER_UNAVAILABLE`; nothing executes without its claim.
   */
  | {
      type: 'ledger.unavailable';
      runId: string;
      store: string;
      target?: string;
      message: string;
      at: number;
    }
  | { type: 'denial.recorded'; runId: string; denial: Denial; at: number }
  | { type: 'access.granted'; runId: string; resource: string; grantedBy: string; at: number }
  | { type: 'run.stopped'; runId: string; outcome: Outcome; at: number };

export type RecoveryEventType = RecoveryEvent['type'];
export type EventListener = (event: RecoveryEvent) => void;
