import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openFileDownstream } from './downstream.js';
import type { TakeOverVariant } from './protocol.js';
import { startWorker, type WorkerHandle } from './spawn-worker.js';
import { createStoreSpec, dropStore, openLedger, type StoreSpec, storeKinds } from './stores.js';

const dir = mkdtempSync(join(tmpdir(), 'recourse-crash-'));
const specs: StoreSpec[] = [];
afterAll(async () => {
  await Promise.all(specs.map(dropStore));
  rmSync(dir, { recursive: true, force: true });
});

// Short enough to wait out after a SIGKILL; the lease renewer keeps a live holder's claim.
const leaseMs = 1_500;

/**
 * Worker A claims the transfer, writes downstream and stands inside its write; worker B
 * asks for the same operation and finds A's claim in flight (A is alive: B waits, not by
 * chance of timing). Then A is SIGKILLed before it can complete the claim, and B, still
 * waiting, takes over once the lease runs out. Returns what B saw, whether it waited, and
 * the state A left behind.
 */
async function crashThenTakeOver(kind: StoreSpec['kind'], variant: TakeOverVariant) {
  const store = createStoreSpec(kind, dir);
  specs.push(store);
  const downstreamDir = join(dir, `downstream-${randomUUID()}`);
  mkdirSync(downstreamDir);
  const base = { runId: `run-${randomUUID()}`, store, leaseMs, downstreamDir, variant };
  const started: WorkerHandle[] = [];
  try {
    const a = startWorker({ ...base, scenario: 'crash-mid-write', worker: 0 });
    started.push(a);
    await a.ready;
    a.go();
    await a.blocking;

    const downstream = openFileDownstream(downstreamDir, { dedupe: false });
    const key = downstream.requests()[0]?.key ?? '';
    const ledger = openLedger(store, leaseMs);
    // A stands still inside its write: what the ledger holds now is what the kill leaves.
    const afterCrash = await ledger.get(key);

    const b = startWorker({ ...base, scenario: 'take-over', worker: 1, reportInFlight: true });
    started.push(b);
    await b.ready;
    b.go();
    // B found A's claim in flight while A was alive: it is waiting, whatever the timing.
    const waited = await b.waitFor('claim-waiting');
    await a.kill();
    const report = await b.finished;
    const record = await ledger.get(key);
    await ledger.close?.();
    return { key, afterCrash, report, record, downstream, waitedOn: waited.key };
  } finally {
    await Promise.all(started.map((w) => w.kill()));
  }
}

describe.each(storeKinds)('%s ledger: a worker killed mid-write', (kind) => {
  it('leaves the claim in flight; the next worker waits out the lease, reconciles, and does not write again', async () => {
    const { key, afterCrash, report, record, downstream, waitedOn } = await crashThenTakeOver(
      kind,
      'reconcile',
    );
    expect(afterCrash).toMatchObject({ state: 'in_flight' });
    // B waited on A's claim of this very key, then took it over in doubt (it reconciled).
    expect(waitedOn).toBe(key);
    const receipt = downstream.find(key);
    expect(receipt).toMatchObject({ executedBy: 0 });
    // Both asks of B got A's receipt: the first proven by reconcile, the second from the ledger.
    expect(report.calls).toEqual([
      expect.objectContaining({ ok: true, value: receipt }),
      expect.objectContaining({ ok: true, value: receipt }),
    ]);
    expect(report.events).toContain('reconcile.finished');
    expect(report.events).not.toContain('call.started');
    expect(report.executions).toBe(0);
    expect(downstream.requests()).toEqual([{ key, worker: 0 }]);
    expect(downstream.writes()).toHaveLength(1);
    expect(record).toMatchObject({ state: 'completed', result: { json: JSON.stringify(receipt) } });
    expect(report.outcome.status).toBe('COMPLETED');
  }, 60_000);

  it('replays behind the same key when the downstream dedupes on it (idempotent: true): one write', async () => {
    const { key, afterCrash, report, record, downstream, waitedOn } = await crashThenTakeOver(
      kind,
      'idempotent',
    );
    expect(afterCrash).toMatchObject({ state: 'in_flight' });
    expect(waitedOn).toBe(key);
    // B re-sent the write, with A's key, and the downstream answered with A's receipt.
    expect(report.executions).toBe(1);
    expect(downstream.requests()).toEqual([
      { key, worker: 0 },
      { key, worker: 1 },
    ]);
    expect(downstream.writes()).toEqual([{ key, worker: 0 }]);
    const receipt = downstream.find(key);
    expect(report.calls).toEqual([
      expect.objectContaining({ ok: true, value: receipt }),
      expect.objectContaining({ ok: true, value: receipt }),
    ]);
    expect(record).toMatchObject({ state: 'completed', result: { json: JSON.stringify(receipt) } });
  }, 60_000);

  it('without reconcile or idempotent, does not re-send: the outcome says RECONCILE_BY_HAND', async () => {
    const { key, afterCrash, report, record, downstream, waitedOn } = await crashThenTakeOver(
      kind,
      'none',
    );
    expect(afterCrash).toMatchObject({ state: 'in_flight' });
    expect(waitedOn).toBe(key);
    expect(report.executions).toBe(0);
    expect(downstream.requests()).toEqual([{ key, worker: 0 }]);
    const first = report.calls[0];
    expect(first).toMatchObject({
      ok: false,
      contract: {
        failure_class: 'UNKNOWN_OUTCOME',
        recommended_recovery: 'ABORT',
        retry_same_action: false,
        code: 'RECONCILE_BY_HAND',
        idempotency_key: key,
      },
    });
    expect(report.calls[1]).toMatchObject({ ok: false });
    expect(report.outcome).toMatchObject({
      status: 'FAILED',
      reason: 'RECONCILE_BY_HAND',
      needs_reconciliation: [{ tool: 'transfer', idempotency_key: key }],
    });
    // The doubt is recorded for every later worker, not only this one.
    expect(record).toMatchObject({ state: 'uncertain' });
  }, 60_000);
});
