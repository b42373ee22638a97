import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openJobDownstreams, writeTools } from './agent-job.js';
import type { JobSpec } from './dbos-protocol.js';
import {
  attach,
  blockingAll,
  freePort,
  killAll,
  ownServer,
  register,
  send,
  startWorker,
  until,
} from './restate-harness.js';
import type { RestateJobReport, RestateWorkerCommand } from './restate-protocol.js';

// The Restate server itself killed mid-run: a server of this test's own (never the one
// `.ci/run` shares), restarted on its data folder and ports.
const dir = mkdtempSync(join(tmpdir(), 'recourse-restate-server-'));
const job = (recourse: boolean, killAt = 'during:charge_card'): JobSpec => {
  const workflowId = `job-${randomUUID()}`;
  return { workflowId, recourse, killAt, downstreamDir: join(dir, workflowId) };
};
const jobs = { recourse: job(true), alone: job(false) };
// Killed while a write is claimed and not yet sent. The service process lives on, and so
// does the attempt that ran in it: Restate retries the invocation in a new attempt beside
// it. Once the new attempt has answered the write, the old one is let go from the point it
// was held at (`claimed:<tool>`): it must send nothing. A write with neither reconcile nor
// idempotency, and one with a reconcile.
const held = {
  neither: job(true, 'claimed:send_letter'),
  reconciled: job(true, 'claimed:charge_card'),
};
const all = [...Object.values(jobs), ...Object.values(held)];
const reports = new Map<string, RestateJobReport>();

beforeAll(async () => {
  const server = await ownServer(join(dir, 'restate-data'));
  const port = await freePort();
  const service = startWorker({
    port,
    ledgerPath: join(dir, 'ledger.sqlite'),
    worker: 1,
    first: true,
  });
  await until(service, () => service.messages.some((m) => m.type === 'ready'));
  await register(server.urls, `http://127.0.0.1:${port}`);
  for (const spec of all) await send(server.urls, spec);
  // The charge is applied and its result not yet back when the server dies.
  await blockingAll(service, all);
  await server.kill();
  await server.start();
  // The same service process, still alive, gets the retried invocations.
  for (const spec of all)
    reports.set(spec.workflowId, (await attach(server.urls, spec)) as RestateJobReport);
  // The new attempts are done; the superseded ones go on from their claims.
  for (const { workflowId } of Object.values(held))
    service.child.send({ type: 'release', workflowId } satisfies RestateWorkerCommand);
  await until(service, () =>
    Object.values(held).every(({ workflowId }) =>
      service.messages.some((m) => m.type === 'held-call-ended' && m.workflowId === workflowId),
    ),
  );
}, 120_000);

afterAll(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

const applied = (spec: JobSpec) => {
  const d = openJobDownstreams(spec.downstreamDir);
  return { reserve_stock: d.stock, charge_card: d.payments, send_letter: d.letters };
};

describe('Restate: the server killed with SIGKILL mid-write and restarted on its data folder', () => {
  it('with recourse the run goes on: the uncrashed outcome, every write applied once', () => {
    expect(reports.get(jobs.recourse.workflowId)?.result).toMatchObject({
      status: 'COMPLETED',
      completed_steps: [
        'read_account',
        'reserve_stock',
        'charge_card',
        'send_letter',
        'read_status',
      ],
      // The charge in doubt is reconciled (found applied), not retried: no recovery.
      recoveries: [],
    });
    for (const tool of writeTools) {
      const downstream = applied(jobs.recourse)[tool];
      expect(
        { requests: downstream.requests().length, applied: downstream.writes().length },
        tool,
      ).toEqual({
        requests: 1,
        applied: 1,
      });
    }
  });

  it('Restate alone runs the cut ctx.run again: the charge applied twice', () => {
    expect(reports.get(jobs.alone.workflowId)?.result).toEqual({ text: 'done', steps: 6 });
    expect(applied(jobs.alone).charge_card.writes()).toHaveLength(2);
  });
});

describe('Restate: the server killed while a write is claimed, its attempt left running', () => {
  it('a write with neither reconcile nor idempotency: left to a person, never sent by the superseded attempt', () => {
    expect(reports.get(held.neither.workflowId)?.result).toMatchObject({
      status: 'FAILED',
      needs_reconciliation: [expect.objectContaining({ tool: 'send_letter' })],
    });
    // The person is told it may have happened; it did not, and it will not behind their back.
    expect(openJobDownstreams(held.neither.downstreamDir).letters.requests()).toEqual([]);
  });

  it('a reconciled write: found not applied, sent once by the new attempt, never by the old one', () => {
    expect(reports.get(held.reconciled.workflowId)?.result).toMatchObject({
      status: 'COMPLETED',
    });
    expect(openJobDownstreams(held.reconciled.downstreamDir).payments.requests()).toHaveLength(1);
  });
});
