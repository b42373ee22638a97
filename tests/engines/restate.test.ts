import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTools } from './agent-job.js';
import type { JobSpec } from './dbos-protocol.js';
import { expectResumedAsUncrashed, type JobOutcome, writeCounts } from './job-checks.js';
import {
  attach,
  blockingAll,
  freePort,
  kill,
  killAll,
  loadBalancer,
  ownServer,
  type RestateUrls,
  register,
  send,
  sharedServer,
  startWorker,
  until,
} from './restate-harness.js';
import type { RestateJobReport } from './restate-protocol.js';

const dir = mkdtempSync(join(tmpdir(), 'recourse-restate-'));
const ledgerPath = join(dir, 'ledger.sqlite');

const waitScenario = { retryAfterSeconds: 600, restartAfterMs: 60_000 };
const killPoints = [
  ...writeTools.flatMap((tool) => ['before', 'during', 'after'].map((at) => `${at}:${tool}`)),
  'wait:reserve_stock',
];
const scenario = (recourse: boolean, killAt: string | undefined): JobSpec => {
  const workflowId = `job-${randomUUID()}`;
  return {
    workflowId,
    recourse,
    ...(killAt ? { killAt } : {}),
    downstreamDir: join(dir, workflowId),
    ...(killAt?.startsWith('wait:') ? { wait: waitScenario } : {}),
  };
};
const withRecourse = killPoints.map((at) => scenario(true, at));
const restateAlone = killPoints
  .filter((at) => !at.startsWith('wait:'))
  .map((at) => scenario(false, at));
const uncrashed = { recourse: scenario(true, undefined), alone: scenario(false, undefined) };
// Half the killed jobs are resumed by their service process restarted on its address, half
// by another service process behind the same load balancer.
const crashed = [...withRecourse, ...restateAlone];
const restartedGroup = crashed.filter((_, i) => i % 2 === 0);
const takenOverGroup = crashed.filter((_, i) => i % 2 === 1);
const waiting = withRecourse.find((s) => s.wait) as JobSpec;

const reports = new Map<string, RestateJobReport>();
let waitStartedAt = 0;
let waitLeaseEnd: number | undefined;

beforeAll(async () => {
  // The server `.ci/run` started, else one of the test's own.
  const urls: RestateUrls =
    (await sharedServer()) ?? (await ownServer(join(dir, 'restate-data'))).urls;
  const [ownPort, balancedPort, otherPort] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
  ]);
  const balancer = await loadBalancer();
  const config = { ledgerPath };
  // Every process boots at once; the restarted one listens once its predecessor is dead.
  const first = startWorker({ ...config, port: ownPort, worker: 1, first: true });
  const behindBalancer = startWorker({ ...config, port: balancedPort, worker: 2, first: true });
  const other = startWorker({ ...config, port: otherPort, worker: 4, first: false });
  const restarted = startWorker({
    ...config,
    port: ownPort,
    worker: 3,
    first: false,
    listenWhenTold: true,
  });
  const listening = (w: typeof first) => until(w, () => w.messages.some((m) => m.type === 'ready'));

  // Restate pins an invocation to the deployment it started on: the first group on the
  // first process's own address, then the second behind the load balancer.
  await listening(first);
  await register(urls, `http://127.0.0.1:${ownPort}`);
  for (const spec of restartedGroup) await send(urls, spec);
  await blockingAll(first, restartedGroup);
  balancer.route(balancedPort);
  await Promise.all([listening(behindBalancer), listening(other)]);
  await register(urls, `http://127.0.0.1:${balancer.port}`);
  for (const spec of takenOverGroup) await send(urls, spec);
  await blockingAll(behindBalancer, takenOverGroup);
  waitStartedAt =
    [...first.messages, ...behindBalancer.messages].find(
      (m) => m.type === 'blocking' && m.workflowId === waiting.workflowId,
    )?.at ?? 0;

  // Both die with every job at its kill point; Restate retries each on its deployment.
  await Promise.all([kill(first), kill(behindBalancer)]);
  waitLeaseEnd = leaseEndOf(waiting.workflowId);
  balancer.route(otherPort);
  restarted.listen();
  await send(urls, uncrashed.recourse);
  await send(urls, uncrashed.alone);
  await Promise.all(
    [...crashed, uncrashed.recourse, uncrashed.alone].map(async (spec) => {
      reports.set(spec.workflowId, (await attach(urls, spec)) as RestateJobReport);
    }),
  );
}, 240_000);

afterAll(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

/** When the claim of the waiting write lets a resumed execution take it over: the wait's end. */
function leaseEndOf(workflowId: string): number | undefined {
  const db = new DatabaseSync(ledgerPath, { readOnly: true });
  try {
    const row = db
      .prepare('SELECT lease_expires_at FROM recourse_records WHERE key LIKE ?')
      .get(`agentJob/${workflowId}:reserve_stock:%`) as
      | { lease_expires_at: number | null }
      | undefined;
    return row?.lease_expires_at ?? undefined;
  } finally {
    db.close();
  }
}

const countsOf = (spec: JobSpec) => writeCounts(spec.downstreamDir);

const outcomeOf = (spec: JobSpec) => reports.get(spec.workflowId)?.result as JobOutcome;

describe('Restate: an AI SDK agent job whose service process is killed with SIGKILL at every point of its writes', () => {
  it('uncrashed, recourse and Restate alone complete every step, each write once', () => {
    expect(outcomeOf(uncrashed.recourse)).toMatchObject({
      status: 'COMPLETED',
      completed_steps: [
        'read_account',
        'reserve_stock',
        'charge_card',
        'send_letter',
        'read_status',
      ],
      recoveries: [],
    });
    expect(reports.get(uncrashed.alone.workflowId)?.result).toEqual({ text: 'done', steps: 6 });
    for (const spec of [uncrashed.recourse, uncrashed.alone])
      for (const counts of Object.values(countsOf(spec)))
        expect(counts).toEqual({ requests: 1, applied: 1 });
  });

  it('each killed job is resumed where the test put it: its process restarted, or another behind the balancer', () => {
    for (const spec of restartedGroup)
      expect(reports.get(spec.workflowId)?.worker, spec.killAt).toBe(3);
    for (const spec of takenOverGroup)
      expect(reports.get(spec.workflowId)?.worker, spec.killAt).toBe(4);
  });

  it.each(withRecourse.filter((s) => s.killAt !== 'during:send_letter'))(
    'with recourse, killed $killAt: every write applied once, the outcome of the uncrashed run',
    (spec) =>
      expectResumedAsUncrashed(
        outcomeOf(uncrashed.recourse),
        outcomeOf(spec),
        countsOf(spec),
        spec.killAt,
      ),
  );

  it('with recourse, killed during the write with neither: in doubt and reported, never re-sent', () => {
    const spec = withRecourse.find((s) => s.killAt === 'during:send_letter') as JobSpec;
    const outcome = outcomeOf(spec);
    expect(outcome.status).not.toBe('COMPLETED');
    expect(outcome.needs_reconciliation).toEqual([
      expect.objectContaining({ tool: 'send_letter' }),
    ]);
    expect(outcome.completed_steps).toEqual(['read_account', 'reserve_stock', 'charge_card']);
    expect(countsOf(spec).send_letter).toEqual({ requests: 1, applied: 1 });
  });

  it('a Retry-After of 10 minutes survives the restart: the resumed run waits out the rest, then sends once', () => {
    const report = reports.get(waiting.workflowId) as RestateJobReport;
    // The wait is in the ledger (the claim kept until its end), not in a timer of a process.
    expect(waitLeaseEnd).toBeGreaterThanOrEqual(waitStartedAt + 600_000 - 1_000);
    // Resumed a minute later: it waited the rest only, and sent at the wait's end or after.
    expect(report.sleeps).toHaveLength(1);
    expect(report.sleeps[0]).toBeLessThan(600_000 - 30_000);
    expect(report.sentAt).toHaveLength(1);
    expect(report.sentAt[0]).toBeGreaterThanOrEqual(waitLeaseEnd ?? Number.POSITIVE_INFINITY);
    expect(countsOf(waiting).reserve_stock).toEqual({ requests: 1, applied: 1 });
  });

  it('Restate alone (tools as ctx.run): the same kills, its duplicate writes counted', () => {
    const duplicatesOf = (spec: JobSpec) => {
      const counts = countsOf(spec);
      return writeTools.reduce((n, t) => n + Math.max(0, counts[t].applied - 1), 0);
    };
    const rows = restateAlone.map((spec) => ({
      killed: spec.killAt,
      duplicates: duplicatesOf(spec),
      ...Object.fromEntries(writeTools.map((t) => [t, countsOf(spec)[t].applied])),
    }));
    const withRecourseDuplicates = withRecourse.reduce((n, spec) => n + duplicatesOf(spec), 0);
    console.log(
      `Restate alone, killed at ${rows.length} points: ${rows.reduce((n, r) => n + r.duplicates, 0)} duplicate writes (recourse + Restate: ${withRecourseDuplicates})`,
    );
    console.table(rows);
    // A write killed mid-ctx.run runs again: the charge and the letter are applied twice.
    expect(rows.find((r) => r.killed === 'during:charge_card')?.duplicates).toBe(1);
    expect(rows.find((r) => r.killed === 'during:send_letter')?.duplicates).toBe(1);
    expect(withRecourseDuplicates).toBe(0);
  });
});
