import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CallReport, Scenario } from './protocol.js';
import { startWorker, type WorkerHandle } from './spawn-worker.js';
import { createStoreSpec, dropStore, type StoreSpec, storeKinds } from './stores.js';

const dir = mkdtempSync(join(tmpdir(), 'recourse-learned-'));
const specs: StoreSpec[] = [];
afterAll(async () => {
  await Promise.all(specs.map(dropStore));
  rmSync(dir, { recursive: true, force: true });
});

/** Worker A runs `before` and is SIGKILLed at its crash point; worker B then runs `after`. */
async function crashThenContinue(kind: StoreSpec['kind'], before: Scenario, after: Scenario) {
  const store = createStoreSpec(kind, dir);
  specs.push(store);
  const downstreamDir = join(dir, `downstream-${randomUUID()}`);
  mkdirSync(downstreamDir);
  const base = { runId: `run-${randomUUID()}`, store, leaseMs: 30_000, downstreamDir };
  const started: WorkerHandle[] = [];
  try {
    const a = startWorker({ ...base, scenario: before, worker: 0 });
    started.push(a);
    await a.ready;
    a.go();
    const { calls: beforeCrash } = await a.blocking;
    await a.kill();
    const b = startWorker({ ...base, scenario: after, worker: 1 });
    started.push(b);
    await b.ready;
    b.go();
    return { beforeCrash, after: await b.finished };
  } finally {
    await Promise.all(started.map((w) => w.kill()));
  }
}

const contractOf = (report: CallReport | undefined) =>
  report && !report.ok ? report.contract : undefined;

describe.each(storeKinds)('%s ledger: what a run learned survives a SIGKILL', (kind) => {
  it('a step made poison in the killed worker is poison in the next one', async () => {
    const { beforeCrash, after } = await crashThenContinue(kind, 'spend-repairs', 'repeat-poison');
    // A: the 422 is repaired twice (repairBudget 2), then A dies before trying again.
    expect(beforeCrash.map(contractOf)).toEqual([
      expect.objectContaining({ failure_class: 'VALIDATION', recommended_recovery: 'REPAIR' }),
      expect.objectContaining({ failure_class: 'VALIDATION', recommended_recovery: 'REPAIR' }),
    ]);
    const [other, same] = after.calls;
    // B: a different input has its own fingerprint and budget, so it is still repaired...
    expect(contractOf(other)).toMatchObject({ recommended_recovery: 'REPAIR' });
    // ...but the input A spent the budget on is poison at B's first try.
    expect(contractOf(same)).toMatchObject({
      failure_class: 'VALIDATION',
      recommended_recovery: 'ABORT',
      retry_same_action: false,
      code: 'POISON',
    });
    expect(after.outcome).toMatchObject({ status: 'FAILED', reason: 'POISON' });
  }, 60_000);

  it('a resource denied to the killed worker stays denied to the next one, by every route', async () => {
    const { beforeCrash, after } = await crashThenContinue(kind, 'get-denied', 'reach-denied');
    expect(contractOf(beforeCrash[0])).toMatchObject({
      status: 'BLOCKED',
      failure_class: 'AUTHORIZATION',
      recommended_recovery: 'ABORT',
    });
    const [again, byShell, elsewhere] = after.calls;
    expect(contractOf(again)).toMatchObject({
      status: 'BLOCKED',
      code: 'DENIED_EARLIER',
      resource: 'https://github.com/acme/secret',
    });
    expect(contractOf(byShell)).toMatchObject({ status: 'BLOCKED', code: 'DENIED_EARLIER' });
    // onDenial 'continue': only what the denial covers is blocked.
    expect(elsewhere).toMatchObject({ ok: true, value: { repo: 'acme/public' } });
    // Neither blocked call reached its tool; the unrelated one did.
    expect(after.executions).toBe(1);
    expect(after.outcome.status).toBe('PARTIAL_RESULT');
  }, 60_000);
});
