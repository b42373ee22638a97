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
  /**
   * Pending jobs of a dead executor this worker takes over: `DBOS.resumeWorkflow` onto a
   * queue of its own that only it dequeues (DBOS's internal queue is dequeued by every
   * process of the application, so the restarted executor could take them instead).
   */
  takeOver: string[];
  /**
   * The queues this process dequeues besides DBOS's internal one (`listenQueues`); [] for
   * none. Default: every queue.
   */
  listenQueues?: string[] | undefined;
  /**
   * Waits for the test's `launch` message before `DBOS.launch`: two processes migrating a
   * new system database at once fail, and a process that dispatches DBOS's internal queue
   * must not start before the restarted executor has taken its own jobs from it.
   */
  launchWhenTold?: boolean | undefined;
  /** Jobs whose results this worker waits for and reports (started, recovered or taken over). */
  report: string[];
}

export interface JobReport {
  result: unknown;
  /** The waits of 1 s or more the job's clock was asked for, in ms. */
  sleeps: number[];
  /** The clock time of every send of reserve_stock in this worker. */
  sentAt: number[];
  /** The job's workflow function ran in this worker (else another process resumed it). */
  ranHere: boolean;
}

export type WorkerReport =
  | { type: 'ready' }
  | { type: 'running'; workflowId: string }
  | { type: 'blocking'; workflowId: string; point: string; at: number }
  | { type: 'finished'; jobs: Record<string, JobReport> };

/** What the test tells a worker. */
export type WorkerCommand = { type: 'launch' };

/** The queue a worker resumes a dead executor's jobs onto (see `takeOver`). */
export const takeOverQueueOf = (executorId: string) => `recourse-takeover-${executorId}`;
