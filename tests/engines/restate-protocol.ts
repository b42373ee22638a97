import type { JobReport } from './dbos-protocol.js';

/** The environment variable a Restate service process reads its config from (JSON). */
export const restateWorkerVariable = 'RECOURSE_RESTATE_WORKER';

export interface RestateWorkerConfig {
  port: number;
  ledgerPath: string;
  worker: number;
  /** True for the first processes: jobs stop at their kill points. */
  first: boolean;
  /**
   * Listens once the test says `listen`: the process boots while the one it replaces still
   * holds the port, so Restate's retries find it up at once.
   */
  listenWhenTold?: boolean | undefined;
}

/** What a job's handler returns: its result, and what the job saw in the process that finished it. */
export interface RestateJobReport extends Omit<JobReport, 'ranHere'> {
  /** The service process that ran the job to its end. */
  worker: number;
}

/** What the test tells a service process: listen, or let a job held at `claimed:<tool>` go on. */
export type RestateWorkerCommand = { type: 'listen' } | { type: 'release'; workflowId: string };
