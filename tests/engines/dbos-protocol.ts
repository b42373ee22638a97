/** The environment variable a DBOS worker reads its config from (JSON). */
export const dbosWorkerVariable = 'RECOURSE_DBOS_WORKER';

export interface WaitScenario {
  /** The Retry-After the first attempt of reserve_stock gets, in seconds. */
  retryAfterSeconds: number;
  /** How much later than the first worker's wait began the resumed worker's clock starts. */
  restartAfterMs: number;
}

/** One agent job, as the workflow's argument (DBOS keeps it for the recovery). */
export interface JobSpec {
  workflowId: string;
  /** false: the engine alone (tools as DBOS steps with DBOS's step retries). */
  recourse: boolean;
  /** The point the first execution stops at for good (the test kills its process there). */
  killAt?: string | undefined;
  downstreamDir: string;
  /** A Retry-After on the first attempt of the idempotent write, waited on the job's clock. */
  wait?: WaitScenario | undefined;
}

export interface DbosWorkerConfig {
  systemDatabaseUrl: string;
  /** DBOS executor id: the killed worker's to play "the process restarted", another for "another worker". */
  executorId: string;
  worker: number;
  /** True for the first workers: jobs stop at their kill points. */
  first: boolean;
  /** Jobs this worker starts. */
  start: JobSpec[];
  /** Pending jobs of a dead executor this worker takes over (`DBOS.resumeWorkflow`). */
  takeOver: string[];
  /** Jobs whose results this worker waits for and reports (started, recovered or taken over). */
  report: string[];
}

export interface JobReport {
  result: unknown;
  /** The waits of 1 s or more the job's clock was asked for, in ms. */
  sleeps: number[];
  /** The clock time of every send of reserve_stock in this worker. */
  sentAt: number[];
}

export type WorkerReport =
  | { type: 'ready' }
  | { type: 'blocking'; workflowId: string; point: string; at: number }
  | { type: 'finished'; jobs: Record<string, JobReport> };
