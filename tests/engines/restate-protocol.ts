/** The environment variable a Restate service process reads its config from (JSON). */
export const restateWorkerVariable = 'RECOURSE_RESTATE_WORKER';

export interface RestateWorkerConfig {
  port: number;
  ledgerPath: string;
  worker: number;
  /** True for the first process: jobs stop at their kill points. */
  first: boolean;
}
