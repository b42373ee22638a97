import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openJobDownstreams } from './agent-job.js';
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

// The Restate server killed while a write is claimed and not yet sent. The service process
// lives on, and so does the attempt that was running in it: Restate retries the invocation
// in a new attempt beside it. Once the new attempt has answered the write, the old one is
// let go at the point it was held: it must send nothing.
const dir = mkdtempSync(join(tmpdir(), 'recourse-restate-attempt-'));
const job = (tool: 'send_letter' | 'charge_card'): JobSpec => {
  const workflowId = `job-${randomUUID()}`;
  return {
    workflowId,
    recourse: true,
    killAt: `claimed:${tool}`,
    downstreamDir: join(dir, workflowId),
  };
};
// A write with neither reconcile nor idempotency, and one with a reconcile.
const jobs = { neither: job('send_letter'), reconciled: job('charge_card') };
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
  for (const spec of Object.values(jobs)) await send(server.urls, spec);
  await blockingAll(service, Object.values(jobs));
  await server.kill();
  await server.start();
  for (const spec of Object.values(jobs))
    reports.set(spec.workflowId, (await attach(server.urls, spec)) as RestateJobReport);
  // The new attempts are done; the superseded ones go on from their claims.
  for (const spec of Object.values(jobs))
    service.child.send({
      type: 'release',
      workflowId: spec.workflowId,
    } satisfies RestateWorkerCommand);
  await until(service, () =>
    Object.values(jobs).every((spec) =>
      service.messages.some(
        (m) => m.type === 'held-call-ended' && m.workflowId === spec.workflowId,
      ),
    ),
  );
}, 120_000);

afterAll(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

describe('Restate: the server killed while a write is claimed, its attempt left running', () => {
  it('a write with neither reconcile nor idempotency: left to a person, and never sent by the superseded attempt', () => {
    const report = reports.get(jobs.neither.workflowId)?.result;
    expect(report).toMatchObject({
      status: 'FAILED',
      needs_reconciliation: [expect.objectContaining({ tool: 'send_letter' })],
    });
    // The person is told it may have happened; it did not, and it will not behind their back.
    expect(openJobDownstreams(jobs.neither.downstreamDir).letters.requests()).toEqual([]);
  });

  it('a reconciled write: found not applied and sent once by the new attempt, never again by the old one', () => {
    expect(reports.get(jobs.reconciled.workflowId)?.result).toMatchObject({
      status: 'COMPLETED',
    });
    expect(openJobDownstreams(jobs.reconciled.downstreamDir).payments.requests()).toHaveLength(1);
  });
});
