import type { Outcome, RecoveryContract } from '@recourse/core';
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
  | 'reach-denied';

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
}

export type CallReport =
  | { call: string; ok: true; value: unknown }
  | { call: string; ok: false; contract: RecoveryContract };

export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'blocking'; calls: CallReport[] }
  | {
      type: 'finished';
      calls: CallReport[];
      events: string[];
      executions: number;
      outcome: Outcome;
      finishedAt: number;
    };

export type ParentMessage = { type: 'go' };

export const configVariable = 'RECOURSE_WORKER_CONFIG';
