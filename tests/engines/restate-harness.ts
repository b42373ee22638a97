import { type ChildProcess, spawn } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JobSpec } from './dbos-protocol.js';
import {
  type RestateWorkerCommand,
  type RestateWorkerConfig,
  restateWorkerVariable,
} from './restate-protocol.js';

const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));
const processes: ChildProcess[] = [];

export interface Started {
  child: ChildProcess;
  messages: { type: string; workflowId?: string; at?: number }[];
  exited: Promise<number | null>;
}

function start(command: string, args: string[], env: Record<string, string>): Started {
  const child = spawn(command, args, {
    cwd: repositoryRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  processes.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const messages: Started['messages'] = [];
  child.on('message', (m: Started['messages'][number]) => messages.push(m));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  void exited.then((code) => {
    if (code !== null && code !== 0) console.error(`${args.at(-1)} exited ${code}: ${stderr}`);
  });
  return { child, messages, exited };
}

/** Resolves when `accept` holds for the messages received; rejects if the process dies first. */
export function until(started: Started, accept: () => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!accept()) return;
      started.child.off('message', check);
      resolve();
    };
    started.child.on('message', check);
    void started.exited.then((code) => reject(new Error(`process exited ${code}`)));
    check();
  });
}

/** Resolves once every job named stands at its kill point in `started`. */
export const blockingAll = (started: Started, specs: readonly JobSpec[]) =>
  until(started, () =>
    specs.every((spec) =>
      started.messages.some((m) => m.type === 'blocking' && m.workflowId === spec.workflowId),
    ),
  );

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address ? address.port : 0;
}

/** SIGKILL, resolved once the process is gone. */
export async function kill(started: Started): Promise<void> {
  if (started.child.exitCode === null && started.child.signalCode === null)
    started.child.kill('SIGKILL');
  await started.exited;
}

export function killAll(): void {
  for (const child of processes) if (child.exitCode === null) child.kill('SIGKILL');
}

/** A service process (`restate-worker.ts`), TypeScript through tsx, packages from their sources. */
export function startWorker(config: RestateWorkerConfig): Started & { listen(): void } {
  const started = start(
    process.execPath,
    ['--import', 'tsx', '--conditions=recourse-source', 'tests/engines/restate-worker.ts'],
    { [restateWorkerVariable]: JSON.stringify(config) },
  );
  return {
    ...started,
    listen: () => started.child.send({ type: 'listen' } satisfies RestateWorkerCommand),
  };
}

export interface RestateUrls {
  ingress: string;
  admin: string;
}

/**
 * The server binary itself, from the npm package (its launcher would leave the server
 * running when killed). Resolved from the package's real folder, where pnpm puts the
 * platform package beside it.
 */
export function restateServerBinary(): string {
  const launcher = realpathSync(
    join(repositoryRoot, 'tests/engines/node_modules/@restatedev/restate-server/package.json'),
  );
  return createRequire(launcher).resolve(
    `@restatedev/restate-server-${process.platform}-${process.arch}/bin/restate-server`,
  );
}

export interface OwnServer {
  urls: RestateUrls;
  /** SIGKILL; `start()` again restarts it on the same ports and data folder. */
  kill(): Promise<void>;
  start(): Promise<void>;
}

/** A Restate server of the test's own, its data in `baseDir`. */
export async function ownServer(baseDir: string): Promise<OwnServer> {
  const [ingress, admin, node] = await Promise.all([freePort(), freePort(), freePort()]);
  const urls = { ingress: `http://127.0.0.1:${ingress}`, admin: `http://127.0.0.1:${admin}` };
  let current: Started | undefined;
  const server: OwnServer = {
    urls,
    async start() {
      const args = ['--base-dir', baseDir, '--no-logo', '--listen-mode', 'tcp'];
      current = start(restateServerBinary(), args, {
        RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingress}`,
        RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${admin}`,
        RESTATE_BIND_ADDRESS: `127.0.0.1:${node}`,
        RESTATE_ADVERTISED_ADDRESS: `http://127.0.0.1:${node}`,
      });
      await healthy(urls, current);
    },
    async kill() {
      if (current) await kill(current);
    },
  };
  await server.start();
  return server;
}

/** The server `.ci/run` started (scripts/services.sh), once healthy; else undefined. */
export async function sharedServer(): Promise<RestateUrls | undefined> {
  const ingress = process.env.RECOURSE_RESTATE_INGRESS_URL;
  const admin = process.env.RECOURSE_RESTATE_ADMIN_URL;
  if (!ingress || !admin) return undefined;
  await healthy({ ingress, admin }, undefined);
  return { ingress, admin };
}

async function healthy(urls: RestateUrls, server: Started | undefined): Promise<void> {
  for (;;) {
    if (server && server.child.exitCode !== null) throw new Error('the Restate server exited');
    const up = await Promise.all([
      fetch(`${urls.admin}/health`).then(
        (r) => r.ok,
        () => false,
      ),
      fetch(`${urls.ingress}/restate/health`).then(
        (r) => r.ok,
        () => false,
      ),
    ]);
    if (up.every(Boolean)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Registers a service address with the server: a deployment, latest for new invocations. */
export async function register(urls: RestateUrls, uri: string): Promise<void> {
  const response = await fetch(`${urls.admin}/deployments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ uri }),
  });
  if (!response.ok)
    throw new Error(`registering ${uri}: ${response.status} ${await response.text()}`);
}

/** Starts the job as a workflow (its key the job's id) and returns at once. */
export async function send(urls: RestateUrls, spec: JobSpec): Promise<void> {
  const response = await fetch(`${urls.ingress}/agentJob/${spec.workflowId}/run/send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(spec),
  });
  if (!response.ok) throw new Error(`sending ${spec.workflowId}: ${response.status}`);
}

/** Waits for the workflow's result. */
export async function attach(urls: RestateUrls, spec: JobSpec): Promise<unknown> {
  const response = await fetch(
    `${urls.ingress}/restate/workflow/agentJob/${spec.workflowId}/attach`,
  );
  if (!response.ok) throw new Error(`attaching ${spec.workflowId}: ${response.status}`);
  return response.json();
}

/**
 * A TCP load balancer in front of service processes: every new connection goes to the
 * backend `route` names last. Connections to a backend that dies are closed, so the server
 * reconnects, and lands on the backend alive.
 */
export async function loadBalancer(): Promise<{ port: number; route(port: number): void }> {
  let target = 0;
  const balancer = createServer((client: Socket) => {
    const backend = connect(target, '127.0.0.1');
    client.pipe(backend).pipe(client);
    const close = () => {
      client.destroy();
      backend.destroy();
    };
    client.on('error', close).on('close', close);
    backend.on('error', close).on('close', close);
  });
  await new Promise<void>((resolve) => balancer.listen(0, '127.0.0.1', resolve));
  balancer.unref();
  const address = balancer.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    route: (port) => {
      target = port;
    },
  };
}
