import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { startWorker } from './child.js';
import type { Engine, JobEnd } from './engine.js';
import { type DbosWorkerConfig, workerVariable } from './protocol.js';

const serverUrl = process.env.RECOURSE_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/** The benchmark's own system database (other engineers' tests use theirs at the same time). */
const databaseName = 'recourse_killbench_dbos';

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * DBOS on this machine's PostgreSQL, in a database created fresh for the run and dropped
 * after it. A batch's first worker is killed; the same executor restarted recovers its jobs,
 * or (every other batch) another worker with its own executor id takes them over.
 */
export async function setupDbos(resultTimeoutMs: number): Promise<Engine> {
  await admin(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${databaseName}`);
  const systemDatabaseUrl = Object.assign(new URL(serverUrl), {
    pathname: `/${databaseName}`,
  }).href;
  const config = (
    executorId: string,
    downstreamUrl: string,
    rest: Pick<DbosWorkerConfig, 'first' | 'start' | 'takeOver' | 'report'>,
  ): DbosWorkerConfig => ({ systemDatabaseUrl, executorId, downstreamUrl, ...rest });
  let executorId = '';
  let batches = 0;
  return {
    name: 'DBOS',
    async startJobs(specs, downstreamUrl) {
      executorId = `killbench-${randomUUID()}`;
      return startWorker(
        './dbos-worker.ts',
        config(executorId, downstreamUrl, { first: true, start: specs, takeOver: [], report: [] }),
        workerVariable,
      );
    },
    async resume(specs, downstreamUrl) {
      const ids = specs.map((spec) => spec.jobId);
      // Even batches: the same executor restarted; odd ones: another worker takes them over.
      const restarted = batches++ % 2 === 0;
      const worker = startWorker(
        './dbos-worker.ts',
        restarted
          ? config(executorId, downstreamUrl, {
              first: false,
              start: [],
              takeOver: [],
              report: ids,
            })
          : config(`killbench-${randomUUID()}`, downstreamUrl, {
              first: false,
              start: [],
              takeOver: ids,
              report: ids,
            }),
        workerVariable,
      );
      const ends = new Map<string, JobEnd>();
      try {
        await worker.until(
          (messages) =>
            messages.filter((m) => m.type === 'result' || m.type === 'failed').length ===
            ids.length,
          resultTimeoutMs,
        );
      } catch (error) {
        console.error(`[killed] DBOS resume: ${String(error).slice(0, 600)}`);
      }
      for (const message of worker.messages) {
        if (message.type === 'result')
          ends.set(message.jobId, { kind: 'result', result: message.result });
        if (message.type === 'failed')
          ends.set(message.jobId, { kind: 'failed', error: message.error });
      }
      await worker.kill();
      return ends;
    },
    async teardown() {
      await admin(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
    },
  };
}
