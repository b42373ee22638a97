import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { configVariable, type WorkerConfig, type WorkerMessage } from './protocol.js';

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
  const message = <T extends WorkerMessage['type']>(type: T) =>
    Promise.race([
      new Promise<Extract<WorkerMessage, { type: T }>>((resolve) =>
        child.on('message', (m: WorkerMessage) => {
          if (m.type === type) resolve(m as Extract<WorkerMessage, { type: T }>);
        }),
      ),
      died,
    ]);
  const ready = message('ready').then(() => {});
  const blocking = message('blocking');
  const finished = message('finished');
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
    go: () => child.send({ type: 'go' }),
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
