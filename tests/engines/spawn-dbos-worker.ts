import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  type DbosWorkerConfig,
  dbosWorkerVariable,
  type WorkerCommand,
  type WorkerReport,
} from './dbos-protocol.js';

const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));
const workerScript = fileURLToPath(new URL('./dbos-worker.ts', import.meta.url));

type Finished = Extract<WorkerReport, { type: 'finished' }>;
type Blocking = Extract<WorkerReport, { type: 'blocking' }>;

export interface DbosWorker {
  child: ChildProcess;
  /** Resolves once every job named stands at its kill point. */
  blockingAt(workflowIds: readonly string[]): Promise<Map<string, Blocking>>;
  /** Resolves once the workflow function of every job named runs in this worker. */
  running(workflowIds: readonly string[]): Promise<void>;
  /** Resolves once DBOS is launched (its system database migrated). */
  ready: Promise<void>;
  /** Lets a worker started with `launchWhenTold` launch DBOS. */
  launch(): void;
  /** Resolves with the report once the worker exits cleanly. */
  finished: Promise<Finished>;
  /** SIGKILL, resolved once the process is gone. */
  kill(): Promise<void>;
}

/**
 * Starts `dbos-worker.ts` as its own Node process (TypeScript through tsx, workspace
 * packages from their sources). Every wait rejects with the worker's stderr if it dies
 * first, so a broken worker fails the test instead of hanging it.
 */
export function startDbosWorker(config: DbosWorkerConfig): DbosWorker {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=recourse-source', workerScript],
    {
      cwd: repositoryRoot,
      env: { ...process.env, [dbosWorkerVariable]: JSON.stringify(config) },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const died = exited.then((code) => {
    throw new Error(`DBOS worker ${config.worker} exited ${code}: ${stderr.slice(-4000)}`);
  });
  died.catch(() => {});
  const blocking = new Map<string, Blocking>();
  const running = new Set<string>();
  let launched = false;
  const finished = new Promise<Finished>((resolve, reject) => {
    child.on('message', (message: WorkerReport) => {
      if (message.type === 'ready') launched = true;
      if (message.type === 'running') running.add(message.workflowId);
      if (message.type === 'blocking') blocking.set(message.workflowId, message);
      if (message.type === 'finished') resolve(message);
    });
    died.catch(reject);
  }).then(async (report) => {
    const code = await exited;
    if (code !== 0) throw new Error(`DBOS worker ${config.worker} exited ${code}: ${stderr}`);
    return report;
  });
  finished.catch(() => {});
  // Resolves once `done()` holds after a message (or already), rejects if the worker dies.
  const until = (done: () => boolean) =>
    Promise.race([
      new Promise<void>((resolve) => {
        const check = () => {
          if (!done()) return;
          child.off('message', check);
          resolve();
        };
        child.on('message', check);
        check();
      }),
      died,
    ]);
  const ready = until(() => launched);
  ready.catch(() => {});
  return {
    child,
    blockingAt: (workflowIds) =>
      until(() => workflowIds.every((id) => blocking.has(id))).then(() => blocking),
    running: (workflowIds) => until(() => workflowIds.every((id) => running.has(id))),
    ready,
    launch: () => child.send({ type: 'launch' } satisfies WorkerCommand),
    finished,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
