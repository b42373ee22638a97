import type { Child } from './child.js';
import type { JobResult, JobSpec } from './protocol.js';

/** A job's end as the benchmark saw it: its own report, its failure, or nothing in time. */
export type JobEnd =
  | { kind: 'result'; result: JobResult }
  | { kind: 'failed'; error: string }
  | { kind: 'unfinished' };

/** One durable-execution engine, as the batch runner drives it. */
export interface Engine {
  name: string;
  /** Starts the first life of a worker and the batch's jobs in it. */
  startJobs(specs: JobSpec[], downstreamUrl: string): Promise<Child>;
  /** Restarts the worker after the kill; resolves with every job's end. */
  resume(specs: JobSpec[], downstreamUrl: string): Promise<Map<string, JobEnd>>;
  /** Stops what `setup` started and removes its data (called on failure too). */
  teardown(): Promise<void>;
}
