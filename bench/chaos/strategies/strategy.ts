import type { Downstream } from '../downstream.js';
import type { StepInput, StepSpec } from '../job-steps.js';
import type { VirtualTime } from '../virtual-time.js';

/** One logical tool call of a job: what a strategy is asked to get done. */
export interface StepCall {
  step: StepSpec;
  input: StepInput;
  /** Names the logical call (one model tool call): a re-issue by the agent is a new call. */
  callId: number;
  /** Sends one request downstream with this idempotency key. */
  send: (idempotencyKey: string) => Promise<unknown>;
  /**
   * Aborts at the job's deadline. Strategies stop retrying when it fires (libraries that
   * take a signal get it); a request already sent is awaited, it cannot be called back.
   */
  signal: AbortSignal;
}

/**
 * What the simulated agent does next after a failed call: call again unchanged, repair
 * the arguments, re-read the state and call again, stop as blocked, or give up.
 */
export type NextMove = 'reissue' | 'repair' | 'reobserve' | 'blocked' | 'abort';

export type StepOutcome =
  | { ok: true }
  | {
      ok: false;
      next: NextMove;
      /** The strategy says it cannot tell whether the write landed (sent to reconciliation). */
      inDoubt: boolean;
      /**
       * Why, as the model was told it: for recourse the contract's recommended recovery and
       * code (`ABORT RETRY_BUDGET_SPENT`), for a baseline what the error text shows
       * (`HTTP 503`, `TimeoutError`). The report's breakdown of unfinished jobs uses it.
       */
      reason: string;
    };

export interface JobRunner {
  call(call: StepCall): Promise<StepOutcome>;
}

export interface StrategyEnvironment {
  time: VirtualTime;
  downstream: Downstream;
  seed: number;
  /** Every job's time limit from its arrival (what the agent knows it has). */
  deadlineMs: number;
}

/** A recovery strategy under test: how one job's tool calls are retried. */
export interface Strategy {
  name: string;
  description: string;
  /** A baseline (what people use today) or recourse: the report compares the two. */
  kind: 'baseline' | 'recourse';
  /** Set up shared state (a ledger, a retry budget) for one benchmark run. */
  start(environment: StrategyEnvironment): Promise<StrategyRun> | StrategyRun;
}

export interface StrategyRun {
  createJob(jobId: string): JobRunner;
  close?(): Promise<void> | void;
}
