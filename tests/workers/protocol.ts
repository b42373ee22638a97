import type { CompensationReport, Outcome, RecoveryContract } from '@recourse/core';
import type { StoreSpec } from './stores.js';

export type Scenario =
  /** Every operation once, in a worker-specific order, several at a time. */
  | 'hammer'
  /** Writes downstream, says `blocking`, and never finishes: the test kills it. */
  | 'crash-mid-write'
  /** The same operation after the crash: the lease expires and this worker takes over. */
  | 'take-over'
  /** Spends the repair budget on one failing input, says `blocking`, waits to be killed. */
  | 'spend-repairs'
  /** A different failing input, then the one that was poison in the crashed worker. */
  | 'repeat-poison'
  /** Is refused a resource (403), says `blocking`, waits to be killed. */
  | 'get-denied'
  /** Reaches for the denied resource by two routes, and for another resource. */
  | 'reach-denied'
  /** Creates a VM, configures its DNS, then compensates both (`recovery.compensate()`). */
  | 'provision-and-undo'
  /**
   * The same writes, says `provisioned`, compensates on `compensate`. Each undo it applies
   * says `undo-applied` and waits for `resume`; an undo it finds in flight says `claim-waiting`.
   */
  | 'undo-together'
  /** The same writes, compensates; says `blocking` once the first undo landed downstream. */
  | 'crash-mid-undo';

/** How a take-over worker may resolve the crashed worker's in-doubt write. */
export type TakeOverVariant = 'reconcile' | 'idempotent' | 'none';

export interface WorkerConfig {
  scenario: Scenario;
  worker: number;
  runId: string;
  store: StoreSpec;
  leaseMs: number;
  downstreamDir: string;
  operations?: number | undefined;
  variant?: TakeOverVariant | undefined;
  /** The downstream refuses the first request of each undo (a 503, nothing applied). */
  refuseFirstUndo?: boolean | undefined;
  /** The undo is declared idempotent and the downstream applies each undo key once. */
  idempotentUndo?: boolean | undefined;
  /** Says `claim-waiting` the first time a claim of a key comes back in flight. */
  reportInFlight?: boolean | undefined;
}

export type CallReport =
  | { call: string; ok: true; value: unknown }
  | { call: string; ok: false; contract: RecoveryContract };

export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'blocking'; calls: CallReport[] }
  | { type: 'provisioned'; calls: CallReport[] }
  /** An undo, sent under `key`, landed downstream; its completion is not stored yet. */
  | { type: 'undo-applied'; key: string; tool: string }
  /** This worker's claim of the undo `key` found it in flight in another process. */
  | { type: 'claim-waiting'; key: string }
  | {
      type: 'finished';
      calls: CallReport[];
      events: string[];
      executions: number;
      outcome: Outcome;
      /** What `recovery.compensate()` resolved to, in the scenarios that call it. */
      compensation?: CompensationReport | undefined;
    };

export type ParentMessage = { type: 'go' } | { type: 'compensate' } | { type: 'resume' };

export const configVariable = 'RECOURSE_WORKER_CONFIG';
