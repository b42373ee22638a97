/** The three writes of the job, and where the worker process is killed in one of them. */
export type WriteTool = 'reserve_stock' | 'charge_card' | 'send_letter';
export const writeTools: readonly WriteTool[] = ['reserve_stock', 'charge_card', 'send_letter'];

/**
 * `before-send`: the write's tool runs (recourse has claimed its key), the request is not
 * sent. `held`: the downstream has the request and has not applied it yet; it applies it
 * once the worker is dead (a server does not see its caller die). `after-apply`: the
 * downstream applied it; the response never reaches the worker.
 */
export type KillPoint = 'before-send' | 'held' | 'after-apply';
export const killPoints: readonly KillPoint[] = ['before-send', 'held', 'after-apply'];

export type Strategy = 'recourse' | 'alone';

/** One job, as the workflow's argument (the engine keeps it for the resumed run). */
export interface JobSpec {
  jobId: string;
  recourse: boolean;
  /** Set when the job's kill point is `before-send`: the worker stops there, in its first life. */
  stopBeforeSending?: WriteTool | undefined;
}

/** What a finished job says of itself, the same shape for both strategies. */
export interface JobResult {
  /** recourse's outcome status; `COMPLETED` for the engine alone when the loop ended. */
  status: string;
  /** Writes the job reports done (completed steps). */
  done: string[];
  /** Writes the job reports in doubt, for a person (`needs_reconciliation`). */
  inDoubt: string[];
}

/** Messages a worker process sends its parent over IPC. */
export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'blocking'; jobId: string }
  | { type: 'result'; jobId: string; result: JobResult }
  | { type: 'failed'; jobId: string; error: string };

/** The environment variable a worker reads its JSON config from. */
export const workerVariable = 'RECOURSE_KILLBENCH_WORKER';

export interface WorkerConfigBase {
  /** The orchestrator's HTTP downstream. */
  downstreamUrl: string;
  /** True in the life that is killed: `before-send` points stop for good. */
  first: boolean;
}

export interface DbosWorkerConfig extends WorkerConfigBase {
  systemDatabaseUrl: string;
  executorId: string;
  /** Jobs this life starts (the first); the second recovers them on launch. */
  start: JobSpec[];
  /** Pending jobs of a dead executor this worker takes over (`DBOS.resumeWorkflow`). */
  takeOver: string[];
  /** Jobs whose results this life reports. */
  report: string[];
}

export interface RestateWorkerConfig extends WorkerConfigBase {
  port: number;
  ledgerPath: string;
}
