import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTools } from './agent-job.js';
import { type JobReport, type JobSpec, takeOverQueueOf } from './dbos-protocol.js';
import { expectResumedAsUncrashed, type JobOutcome, writeCounts } from './job-checks.js';
import { type DbosWorker, startDbosWorker } from './spawn-dbos-worker.js';

const serverUrl = process.env.RECOURSE_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
// A database of its own per run: DBOS's queues are shared by every process of an application
// on one system database, so a run must not meet another run's (or a crashed run's) jobs.
const databaseName = `recourse_dbos_test_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
const systemDatabaseUrl = Object.assign(new URL(serverUrl), { pathname: `/${databaseName}` }).href;

const dir = mkdtempSync(join(tmpdir(), 'recourse-dbos-'));
const workers: DbosWorker[] = [];

interface Scenario {
  name: string;
  spec: JobSpec;
}

const waitScenario = { retryAfterSeconds: 600, restartAfterMs: 60_000 };
const killPoints = [
  ...writeTools.flatMap((tool) => ['before', 'during', 'after'].map((at) => `${at}:${tool}`)),
  'wait:reserve_stock',
];

const scenario = (recourse: boolean, killAt: string | undefined): Scenario => {
  const workflowId = randomUUID();
  return {
    name: `${recourse ? 'recourse' : 'engine alone'} ${killAt ?? 'uncrashed'}`,
    spec: {
      workflowId,
      recourse,
      ...(killAt ? { killAt } : {}),
      ...(killAt?.startsWith('wait:') ? { wait: waitScenario } : {}),
      downstreamDir: join(dir, workflowId),
    },
  };
};

const withRecourse = killPoints.map((at) => scenario(true, at));
const engineAlone = killPoints
  .filter((at) => !at.startsWith('wait:'))
  .map((at) => scenario(false, at));
const uncrashed = { recourse: scenario(true, undefined), alone: scenario(false, undefined) };
// Half the killed jobs are resumed by their own executor restarted, half by another worker.
const crashed = [...withRecourse, ...engineAlone];
const restartedGroup = crashed.filter((_, i) => i % 2 === 0);
const takenOverGroup = crashed.filter((_, i) => i % 2 === 1);

const reports = new Map<string, JobReport>();
const waitStartedAt = new Map<string, number>();
let waitLeaseEnd: number | undefined;

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  await admin(`CREATE DATABASE ${databaseName}`);
  const executors = {
    restarted: `dbos-a-${randomUUID()}`,
    dead: `dbos-b-${randomUUID()}`,
    other: `dbos-c-${randomUUID()}`,
  };
  const ids = (group: Scenario[]) => group.map((s) => s.spec.workflowId);
  // Two first workers run every killed job at once; each job stops at its own kill point.
  const first = [
    startDbosWorker({
      systemDatabaseUrl,
      executorId: executors.restarted,
      worker: 1,
      first: true,
      start: restartedGroup.map((s) => s.spec),
      takeOver: [],
      report: [],
    }),
    startDbosWorker({
      systemDatabaseUrl,
      executorId: executors.dead,
      worker: 2,
      first: true,
      start: takenOverGroup.map((s) => s.spec),
      takeOver: [],
      report: [],
      launchWhenTold: true,
    }),
  ];
  workers.push(...first);
  // The first to launch migrates the new system database; the second launches after it.
  await first[0]?.ready;
  first[1]?.launch();
  const [blockedA, blockedB] = await Promise.all([
    first[0]?.blockingAt(ids(restartedGroup)),
    first[1]?.blockingAt(ids(takenOverGroup)),
  ]);
  for (const blocked of [blockedA, blockedB])
    for (const [id, message] of blocked ?? []) waitStartedAt.set(id, message.at);
  await Promise.all(first.map((worker) => worker.kill()));
  const waiting = withRecourse.find((s) => s.spec.wait)?.spec.workflowId ?? '';
  waitLeaseEnd = await leaseEndOf(waiting);

  // The same executor restarted (DBOS.launch recovers its jobs), and another worker with its
  // own executor id taking over the dead one's jobs; the uncrashed runs start there too.
  // DBOS recovers through its internal queue, which every process of the application
  // dequeues: the other worker launches once the restarted one runs all of its own jobs,
  // and takes the dead executor's over onto a queue that only it dequeues.
  const resumed = [
    startDbosWorker({
      systemDatabaseUrl,
      executorId: executors.restarted,
      worker: 3,
      first: false,
      listenQueues: [],
      start: [uncrashed.recourse.spec, uncrashed.alone.spec],
      takeOver: [],
      report: [
        ...ids(restartedGroup),
        uncrashed.recourse.spec.workflowId,
        uncrashed.alone.spec.workflowId,
      ],
    }),
    startDbosWorker({
      systemDatabaseUrl,
      executorId: executors.other,
      worker: 4,
      first: false,
      listenQueues: [takeOverQueueOf(executors.other)],
      launchWhenTold: true,
      start: [],
      takeOver: ids(takenOverGroup),
      report: ids(takenOverGroup),
    }),
  ];
  workers.push(...resumed);
  await resumed[0]?.running(ids(restartedGroup));
  resumed[1]?.launch();
  for (const { jobs } of await Promise.all(resumed.map((worker) => worker.finished)))
    for (const [id, report] of Object.entries(jobs)) reports.set(id, report);
}, 240_000);

afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.kill()));
  rmSync(dir, { recursive: true, force: true });
  await admin(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
});

/** When the claim of the waiting write lets a resumed execution take it over: the wait's end. */
async function leaseEndOf(workflowId: string): Promise<number | undefined> {
  const client = new pg.Client({ connectionString: systemDatabaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ lease_expires_at: string | null }>(
      `SELECT lease_expires_at FROM recourse_ledger WHERE key LIKE $1`,
      [`${workflowId}:reserve_stock:%`],
    );
    return rows[0]?.lease_expires_at ? Number(rows[0].lease_expires_at) : undefined;
  } finally {
    await client.end();
  }
}

const countsOf = (s: Scenario) => writeCounts(s.spec.downstreamDir);
const outcomeOf = (s: Scenario) => reports.get(s.spec.workflowId)?.result as JobOutcome;

describe('DBOS: an AI SDK agent job killed with SIGKILL at every point of its writes, resumed', () => {
  it('uncrashed, recourse and the engine alone complete every step, each write once', () => {
    expect(outcomeOf(uncrashed.recourse)).toMatchObject({
      status: 'COMPLETED',
      completed_steps: [
        'read_account',
        'reserve_stock',
        'charge_card',
        'send_letter',
        'read_status',
      ],
    });
    expect(reports.get(uncrashed.alone.spec.workflowId)?.result).toEqual({
      text: 'done',
      steps: 6,
    });
    for (const s of [uncrashed.recourse, uncrashed.alone])
      for (const counts of Object.values(countsOf(s)))
        expect(counts).toEqual({ requests: 1, applied: 1 });
  });

  it('each killed job is resumed where the test put it: its executor restarted, or another worker', () => {
    for (const s of crashed) expect(reports.get(s.spec.workflowId)?.ranHere, s.name).toBe(true);
  });

  it.each(withRecourse.filter((s) => s.spec.killAt !== 'during:send_letter'))(
    'with recourse, killed $spec.killAt: every write applied once, the outcome of the uncrashed run',
    (s) =>
      expectResumedAsUncrashed(
        outcomeOf(uncrashed.recourse),
        outcomeOf(s),
        countsOf(s),
        s.spec.killAt,
      ),
  );

  it('with recourse, killed during the write with neither: in doubt and reported, never re-sent', () => {
    const s = withRecourse.find((x) => x.spec.killAt === 'during:send_letter') as Scenario;
    const outcome = outcomeOf(s);
    expect(outcome.status).not.toBe('COMPLETED');
    expect(outcome.needs_reconciliation).toEqual([
      expect.objectContaining({ tool: 'send_letter' }),
    ]);
    expect(outcome.completed_steps).toEqual(['read_account', 'reserve_stock', 'charge_card']);
    expect(countsOf(s).send_letter).toEqual({ requests: 1, applied: 1 });
  });

  it('a Retry-After of 10 minutes survives the restart: the resumed run waits out the rest, then sends once', () => {
    const s = withRecourse.find((x) => x.spec.wait) as Scenario;
    const report = reports.get(s.spec.workflowId) as JobReport;
    const startedAt = waitStartedAt.get(s.spec.workflowId) ?? 0;
    // The wait is in the ledger (the claim kept until its end), not in a timer of a process.
    expect(waitLeaseEnd).toBeGreaterThanOrEqual(startedAt + 600_000 - 1_000);
    // Resumed a minute later: it waited the rest only, and sent at the wait's end or after.
    expect(report.sleeps).toHaveLength(1);
    expect(report.sleeps[0]).toBeLessThan(600_000 - 30_000);
    expect(report.sentAt).toHaveLength(1);
    expect(report.sentAt[0]).toBeGreaterThanOrEqual(waitLeaseEnd ?? Number.POSITIVE_INFINITY);
    expect(countsOf(s).reserve_stock).toEqual({ requests: 1, applied: 1 });
  });

  it('the engine alone: the same kills, its duplicate writes counted', () => {
    const rows = engineAlone.map((s) => {
      const counts = countsOf(s);
      const duplicates = writeTools.reduce(
        (sum, tool) => sum + Math.max(0, counts[tool].applied - 1),
        0,
      );
      return {
        killed: s.spec.killAt,
        duplicates,
        ...Object.fromEntries(writeTools.map((t) => [t, counts[t].applied])),
      };
    });
    const withRecourseDuplicates = withRecourse.reduce((sum, s) => {
      const counts = countsOf(s);
      return sum + writeTools.reduce((n, tool) => n + Math.max(0, counts[tool].applied - 1), 0);
    }, 0);
    const total = rows.reduce((sum, row) => sum + row.duplicates, 0);
    console.log(
      `DBOS alone, killed at ${rows.length} points: ${total} duplicate writes (recourse + DBOS: ${withRecourseDuplicates})`,
    );
    console.table(rows);
    // A write killed mid-step runs again: the charge and the letter are applied twice.
    expect(rows.find((r) => r.killed === 'during:charge_card')?.duplicates).toBe(1);
    expect(rows.find((r) => r.killed === 'during:send_letter')?.duplicates).toBe(1);
    expect(withRecourseDuplicates).toBe(0);
  });
});
