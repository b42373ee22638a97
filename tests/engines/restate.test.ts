import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openJobDownstreams, type WriteTool, writeTools } from './agent-job.js';
import type { JobSpec } from './dbos-protocol.js';
import { type RestateWorkerConfig, restateWorkerVariable } from './restate-protocol.js';

const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'recourse-restate-'));
const processes: ChildProcess[] = [];

interface Started {
  child: ChildProcess;
  messages: { type: string; workflowId?: string }[];
  exited: Promise<number | null>;
}

function start(
  command: string,
  args: string[],
  env: Record<string, string>,
  ipc: boolean,
): Started {
  const child = spawn(command, args, {
    cwd: repositoryRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe', ...(ipc ? (['ipc'] as const) : [])],
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
function until(started: Started, accept: () => boolean): Promise<void> {
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

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address ? address.port : 0;
}

async function kill(started: Started): Promise<void> {
  if (started.child.exitCode === null && started.child.signalCode === null)
    started.child.kill('SIGKILL');
  await started.exited;
}

const scenario = (recourse: boolean, killAt: string): JobSpec => {
  const workflowId = `job-${randomUUID()}`;
  return {
    workflowId,
    recourse,
    killAt,
    downstreamDir: join(dir, workflowId),
    ...(killAt.startsWith('wait:') ? { wait: { retryAfterSeconds: 2, restartAfterMs: 0 } } : {}),
  };
};
const killPoints = ['during:reserve_stock', 'during:charge_card', 'during:send_letter'];
const withRecourse = [...killPoints, 'wait:reserve_stock'].map((at) => scenario(true, at));
const restateAlone = killPoints.map((at) => scenario(false, at));
const results = new Map<string, unknown>();

beforeAll(async () => {
  const [ingress, admin, node, service] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  // The binary itself (the npm package's launcher would leave it running when killed).
  const binary = createRequire(
    join(repositoryRoot, 'tests/engines/node_modules/@restatedev/restate-server/package.json'),
  ).resolve(`@restatedev/restate-server-${process.platform}-${process.arch}/bin/restate-server`);
  const server = start(
    binary,
    ['--base-dir', join(dir, 'restate-data'), '--no-logo', '--listen-mode', 'tcp'],
    {
      RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingress}`,
      RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${admin}`,
      RESTATE_BIND_ADDRESS: `127.0.0.1:${node}`,
      RESTATE_ADVERTISED_ADDRESS: `http://127.0.0.1:${node}`,
    },
    false,
  );
  for (;;) {
    const up = await fetch(`http://127.0.0.1:${admin}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const worker = (n: number, first: boolean) =>
    start(
      process.execPath,
      ['--import', 'tsx', '--conditions=recourse-source', 'tests/engines/restate-worker.ts'],
      {
        [restateWorkerVariable]: JSON.stringify({
          port: service,
          ledgerPath: join(dir, 'ledger.sqlite'),
          worker: n,
          first,
        } satisfies RestateWorkerConfig),
      },
      true,
    );
  const first = worker(1, true);
  await until(first, () => first.messages.some((m) => m.type === 'ready'));
  const registered = await fetch(`http://127.0.0.1:${admin}/deployments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ uri: `http://127.0.0.1:${service}` }),
  });
  expect(registered.ok).toBe(true);
  const jobs = [...withRecourse, ...restateAlone];
  for (const spec of jobs) {
    const sent = await fetch(`http://127.0.0.1:${ingress}/agentJob/${spec.workflowId}/run/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(spec),
    });
    expect(sent.ok).toBe(true);
  }
  // Every job stands at its kill point: the service process dies with all of them.
  await until(first, () =>
    jobs.every((spec) =>
      first.messages.some((m) => m.type === 'blocking' && m.workflowId === spec.workflowId),
    ),
  );
  await kill(first);
  // Another process on the same address: Restate retries every invocation there.
  worker(2, false);
  await Promise.all(
    jobs.map(async (spec) => {
      const response = await fetch(
        `http://127.0.0.1:${ingress}/restate/workflow/agentJob/${spec.workflowId}/attach`,
      );
      results.set(spec.workflowId, await response.json());
    }),
  );
  void server;
}, 240_000);

afterAll(async () => {
  for (const child of processes) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

function applied(spec: JobSpec): Record<WriteTool, { requests: number; applied: number }> {
  const d = openJobDownstreams(spec.downstreamDir);
  const of = (x: typeof d.stock) => ({ requests: x.requests().length, applied: x.writes().length });
  return { reserve_stock: of(d.stock), charge_card: of(d.payments), send_letter: of(d.letters) };
}

type OutcomeLike = { status: string; completed_steps: string[]; needs_reconciliation?: unknown[] };

describe('Restate: an AI SDK agent job whose service process is killed with SIGKILL mid-write', () => {
  it.each(withRecourse.filter((s) => s.killAt !== 'during:send_letter'))(
    'with recourse, killed $killAt: every write applied once, the job completes',
    (spec) => {
      const outcome = results.get(spec.workflowId) as OutcomeLike;
      expect(outcome).toMatchObject({
        status: 'COMPLETED',
        completed_steps: [
          'read_account',
          'reserve_stock',
          'charge_card',
          'send_letter',
          'read_status',
        ],
      });
      const counts = applied(spec);
      for (const tool of writeTools) expect(counts[tool].applied, tool).toBe(1);
      expect(counts.charge_card.requests).toBe(1);
      expect(counts.send_letter.requests).toBe(1);
    },
  );

  it('with recourse, killed during the write with neither: in doubt and reported, never re-sent', () => {
    const spec = withRecourse.find((s) => s.killAt === 'during:send_letter') as JobSpec;
    const outcome = results.get(spec.workflowId) as OutcomeLike;
    expect(outcome.status).not.toBe('COMPLETED');
    expect(outcome.needs_reconciliation).toEqual([
      expect.objectContaining({ tool: 'send_letter' }),
    ]);
    expect(applied(spec).send_letter).toEqual({ requests: 1, applied: 1 });
  });

  it('Restate alone (tools as ctx.run): the same kills, its duplicate writes counted', () => {
    const rows = restateAlone.map((spec) => {
      const counts = applied(spec);
      const duplicates = writeTools.reduce((n, t) => n + Math.max(0, counts[t].applied - 1), 0);
      return { killed: spec.killAt, duplicates };
    });
    console.log(
      `Restate alone, killed at ${rows.length} points: ${rows.reduce((n, r) => n + r.duplicates, 0)} duplicate writes (recourse + Restate: 0)`,
    );
    console.table(rows);
    expect(rows.find((r) => r.killed === 'during:charge_card')?.duplicates).toBe(1);
    expect(rows.find((r) => r.killed === 'during:send_letter')?.duplicates).toBe(1);
  });
});
