import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  configVariable,
  type ParentMessage,
  type WorkerConfig,
  type WorkerMessage,
} from './protocol.js';

const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));
const workerScript = fileURLToPath(new URL('./worker.ts', import.meta.url));

type Finished = Extract<WorkerMessage, { type: 'finished' }>;
type Blocking = Extract<WorkerMessage, { type: 'blocking' }>;

export interface WorkerHandle {
  child: ChildProcess;
  /** Resolves when the worker has opened its ledger and waits for `go`. */
  ready: Promise<void>;
  /** Resolves when the worker stands inside its crash point. */
  blocking: Promise<Blocking>;
  /** Resolves with the worker's report once it exits cleanly. */
  finished: Promise<Finished>;
  /**
   * Resolves with the first message of `type` (already received or still to come) that
   * `match` accepts. Messages are kept, so several waits may see the same one.
   */
  waitFor<T extends WorkerMessage['type']>(
    type: T,
    match?: (message: Extract<WorkerMessage, { type: T }>) => boolean,
  ): Promise<Extract<WorkerMessage, { type: T }>>;
  send(message: ParentMessage): void;
  go(): void;
  /** SIGKILL, resolved once the process is gone. */
  kill(): Promise<void>;
}

/**
 * Starts `worker.ts` as its own Node process, with TypeScript through tsx and the
 * workspace packages resolved to their sources. Every promise rejects if the worker dies
 * first, with its stderr, so a broken worker fails the test instead of hanging it.
 */
export function startWorker(config: WorkerConfig): WorkerHandle {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=recourse-source', workerScript],
    {
      cwd: repositoryRoot,
      env: { ...process.env, [configVariable]: JSON.stringify(config) },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  // 'close' comes after every IPC message and stderr chunk has been delivered.
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => resolve(code)),
  );
  const died = exited.then((code) => {
    throw new Error(`worker ${config.worker} (${config.scenario}) exited ${code}: ${stderr}`);
  });
  died.catch(() => {}); // only an error for whoever is still waiting on it
  const received: WorkerMessage[] = [];
  child.on('message', (m: WorkerMessage) => received.push(m));
  const waitFor: WorkerHandle['waitFor'] = (type, match = () => true) => {
    type Wanted = Extract<WorkerMessage, { type: typeof type }>;
    const wanted = (m: WorkerMessage): m is Wanted => m.type === type && match(m as Wanted);
    const seen = received.find(wanted);
    if (seen) return Promise.resolve(seen);
    return Promise.race([
      new Promise<Wanted>((resolve) => {
        const listener = (m: WorkerMessage) => {
          if (!wanted(m)) return;
          child.off('message', listener);
          resolve(m);
        };
        child.on('message', listener);
      }),
      died,
    ]);
  };
  const ready = waitFor('ready').then(() => {});
  const blocking = waitFor('blocking');
  const finished = waitFor('finished');
  const finishedCleanly = finished.then(async (report) => {
    const code = await exited;
    if (code !== 0) throw new Error(`worker ${config.worker} exited ${code}: ${stderr}`);
    return report;
  });
  // A killed worker rejects what nobody waits for any more: not an unhandled rejection.
  for (const promise of [ready, blocking, finishedCleanly]) promise.catch(() => {});
  return {
    child,
    ready,
    blocking,
    finished: finishedCleanly,
    waitFor,
    send: (message) => child.send(message),
    go: () => child.send({ type: 'go' }),
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
