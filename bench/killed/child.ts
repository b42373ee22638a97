import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { WorkerMessage } from './protocol.js';

const benchRoot = fileURLToPath(new URL('../', import.meta.url));

export interface Child {
  process: ChildProcess;
  messages: WorkerMessage[];
  /** Resolves once `accept` holds for the messages so far; rejects if the process dies first. */
  until(accept: (messages: WorkerMessage[]) => boolean, timeoutMs: number): Promise<void>;
  exited: Promise<number | null>;
  /** SIGKILL, resolved once the process is gone. */
  kill(): Promise<void>;
  stderr(): string;
}

const children = new Set<Child>();

/** Starts a process (a worker through tsx, or the Restate server), tracked for `killAll`. */
export function startChild(
  command: string,
  args: string[],
  env: Record<string, string>,
  ipc: boolean,
): Child {
  const child = spawn(command, args, {
    cwd: benchRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe', ...(ipc ? (['ipc'] as const) : [])],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const messages: WorkerMessage[] = [];
  child.on('message', (message: WorkerMessage) => messages.push(message));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const started: Child = {
    process: child,
    messages,
    exited,
    stderr: () => stderr,
    until: (accept, timeoutMs) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          done();
          reject(new Error(`timed out after ${timeoutMs} ms`));
        }, timeoutMs);
        const check = () => {
          if (!accept(messages)) return;
          done();
          resolve();
        };
        const died = (code: number | null) => {
          done();
          reject(new Error(`${args.at(-1)} exited ${code}: ${stderr}`));
        };
        const done = () => {
          clearTimeout(timer);
          child.off('message', check);
          child.off('close', died);
        };
        child.on('message', check);
        child.on('close', died);
        check();
      }),
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
      children.delete(started);
    },
  };
  children.add(started);
  void exited.then(() => children.delete(started));
  return started;
}

/** Kills every process this benchmark started and has not seen end: on success and on failure. */
export async function killAll(): Promise<void> {
  await Promise.all([...children].map((child) => child.kill()));
}

/** A worker script of this folder as its own Node process, TypeScript through tsx. */
export function startWorker(script: string, config: unknown, variable: string): Child {
  return startChild(
    process.execPath,
    [
      '--import',
      'tsx',
      '--conditions=recourse-source',
      fileURLToPath(new URL(script, import.meta.url)),
    ],
    { [variable]: JSON.stringify(config) },
    true,
  );
}
