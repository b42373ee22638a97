import type { Downstream } from '../downstream.js';
import type { StepInput, StepSpec } from '../job-steps.js';
import type { VirtualTime } from '../virtual-time.js';

/** One logical tool call of a job: what a strategy is asked to get done. */
export interface StepCall {
  step: StepSpec;
  input: StepInput;
  /** Names the logical call, so the downstream can tell retries from new calls. */
  callId: number;
  /** Sends one request downstream with this idempotency key. */
  send: (idempotencyKey: string) => Promise<unknown>;
}

/** What the job (the simulated agent) does next after a failed call. */
export type NextMove = 'repair' | 'reobserve' | 'blocked' | 'abort';

export type StepOutcome =
  | { ok: true }
  | {
      ok: false;
      next: NextMove;
      /** The strategy says it cannot tell whether the write landed (sent to reconciliation). */
      inDoubt: boolean;
    };

export interface JobRunner {
  call(call: StepCall): Promise<StepOutcome>;
}

export interface StrategyEnvironment {
  time: VirtualTime;
  downstream: Downstream;
  seed: number;
}

/** A recovery strategy under test: how one job's tool calls are retried. */
export interface Strategy {
  name: string;
  description: string;
  /** Set up shared state (a ledger, a retry budget) for one benchmark run. */
  start(environment: StrategyEnvironment): Promise<StrategyRun> | StrategyRun;
}

export interface StrategyRun {
  createJob(jobId: string): JobRunner;
  close?(): Promise<void> | void;
}
