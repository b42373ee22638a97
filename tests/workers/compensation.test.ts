import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type DownstreamLine, type FileDownstream, openFileDownstream } from './downstream.js';
import type { WorkerConfig } from './protocol.js';
import { startWorker, type WorkerHandle } from './spawn-worker.js';
import { createStoreSpec, dropStore, openLedger, type StoreSpec, storeKinds } from './stores.js';

const dir = mkdtempSync(join(tmpdir(), 'recourse-compensation-'));
const specs: StoreSpec[] = [];
afterAll(async () => {
  await Promise.all(specs.map(dropStore));
  rmSync(dir, { recursive: true, force: true });
});

// Short enough to wait out after a SIGKILL; the lease renewer keeps a live holder's claim.
const leaseMs = 1_500;
const both = { compensated: ['configure_dns', 'create_vm'], failed: [], not_compensable: [] };

/** The undo of a write is claimed under the write's key + `:compensate`. */
const undoKeyOf = (write: DownstreamLine) => `${write.key}:compensate`;

/** One run's ledger and downstream, and the workers started on them (killed at the end). */
function setUp(kind: StoreSpec['kind'], options: Partial<WorkerConfig> = {}) {
  const store = createStoreSpec(kind, dir);
  specs.push(store);
  const downstreamDir = join(dir, `downstream-${randomUUID()}`);
  mkdirSync(downstreamDir);
  const base = { runId: `run-${randomUUID()}`, store, leaseMs, downstreamDir, ...options };
  const started: WorkerHandle[] = [];
  const start = (
    scenario: WorkerConfig['scenario'],
    worker: number,
    extra: Partial<WorkerConfig> = {},
  ) => {
    const handle = startWorker({ ...base, ...extra, scenario, worker });
    started.push(handle);
    return handle;
  };
  /** Starts a worker, lets it run its scenario, and returns its report. */
  const runToEnd = async (scenario: WorkerConfig['scenario'], worker: number) => {
    const handle = start(scenario, worker);
    await handle.ready;
    handle.go();
    return handle.finished;
  };
  return {
    store,
    downstream: openFileDownstream(downstreamDir, { dedupe: false }),
    start,
    runToEnd,
    stopAll: () => Promise.all(started.map((w) => w.kill())),
  };
}

/** The two writes of the saga, as the downstream applied them: VM first, then its DNS. */
function sagaWrites(downstream: FileDownstream) {
  const writes = downstream.writes();
  expect(writes.map((w) => w.tool)).toEqual(['create_vm', 'configure_dns']);
  const [vm, dns] = writes as [DownstreamLine, DownstreamLine];
  return { vm, dns };
}

/** The undo line a compensation of `write` sends: its own key, the write's key and receipt. */
function undoOf(downstream: FileDownstream, write: DownstreamLine, worker: number) {
  return {
    key: undoKeyOf(write),
    tool: write.tool,
    worker,
    writeKey: write.key,
    of: downstream.find(write.key)?.transferId,
  };
}

const count = (events: readonly string[], type: string) => events.filter((e) => e === type).length;

/**
 * Worker A writes, starts compensating and is SIGKILLed inside the first undo (the DNS
 * record's), after it landed downstream and before its completion was stored. Worker B,
 * the same run restarted, makes the same calls and compensates. Shared by the tests that
 * read it, so the crash runs once per store.
 */
function crashMidUndo(kind: StoreSpec['kind'], options: Partial<WorkerConfig> = {}) {
  const run = async () => {
    const t = setUp(kind, options);
    try {
      const a = t.start('crash-mid-undo', 0);
      await a.ready;
      a.go();
      await a.blocking;
      const { vm, dns } = sagaWrites(t.downstream);
      const ledger = openLedger(t.store, leaseMs);
      try {
        // A stands still inside the DNS undo: what the ledger holds now is what the kill leaves.
        const afterCrash = {
          undos: t.downstream.undos(),
          dns: await ledger.get(undoKeyOf(dns)),
          vm: await ledger.get(undoKeyOf(vm)),
        };
        // B, the same run restarted, finds that undo's claim in flight while A is alive, so
        // it waits, whatever the timing; then A dies and B takes over after the lease.
        const b = t.start('provision-and-undo', 1, { reportInFlight: true });
        await b.ready;
        b.go();
        const waited = await b.waitFor('claim-waiting');
        await a.kill();
        const report = await b.finished;
        const records = {
          dns: await ledger.get(undoKeyOf(dns)),
          vm: await ledger.get(undoKeyOf(vm)),
        };
        return {
          vm,
          dns,
          afterCrash,
          report,
          records,
          downstream: t.downstream,
          waitedOn: waited.key,
        };
      } finally {
        await ledger.close?.();
      }
    } finally {
      await t.stopAll();
    }
  };
  let result: ReturnType<typeof run> | undefined;
  return () => {
    result ??= run();
    return result;
  };
}

describe.each(storeKinds)('%s ledger: compensation at most once', (kind) => {
  it('two processes compensate the same run at once: each undo lands once, newest first, and both report both undone', async () => {
    const t = setUp(kind);
    try {
      const workers = [t.start('undo-together', 0), t.start('undo-together', 1)] as const;
      await Promise.all(workers.map((w) => w.ready));
      for (const w of workers) w.go();
      await Promise.all(workers.map((w) => w.waitFor('provisioned')));
      for (const w of workers) w.send({ type: 'compensate' });

      // Each undo is held inside the process that claimed it until the other process's
      // claim of the same undo has come back in flight: the two really compensate at once.
      const holders: number[] = [];
      for (const tool of ['configure_dns', 'create_vm']) {
        const applied = workers.map((w, worker) =>
          w.waitFor('undo-applied', (m) => m.tool === tool).then((m) => ({ worker, key: m.key })),
        );
        for (const candidate of applied) candidate.catch(() => {}); // the loser never says it
        const { worker, key } = await Promise.race(applied);
        await workers[1 - worker]?.waitFor('claim-waiting', (m) => m.key === key);
        workers[worker]?.send({ type: 'resume' });
        holders.push(worker);
      }
      const reports = await Promise.all(workers.map((w) => w.finished));

      const { vm, dns } = sagaWrites(t.downstream);
      expect(reports.reduce((sum, r) => sum + r.executions, 0)).toBe(2);
      const undos = [
        undoOf(t.downstream, dns, holders[0] ?? -1),
        undoOf(t.downstream, vm, holders[1] ?? -1),
      ];
      expect(t.downstream.undos()).toEqual(undos);
      expect(t.downstream.undoRequests()).toEqual(undos);
      for (const report of reports) {
        expect(report.compensation).toEqual(both);
        expect(report.outcome).toMatchObject({ status: 'COMPLETED', ...both });
      }
      // Per write and per undo: one execution, one duplicate answered from the ledger.
      const events = reports.flatMap((r) => r.events);
      expect(count(events, 'call.started')).toBe(4);
      expect(count(events, 'call.deduplicated')).toBe(4);
      expect(count(events, 'compensation.finished')).toBe(4);

      const ledger = openLedger(t.store, leaseMs);
      try {
        for (const write of [vm, dns])
          expect(await ledger.get(undoKeyOf(write))).toMatchObject({ state: 'completed' });
      } finally {
        await ledger.close?.();
      }
    } finally {
      await t.stopAll();
    }
  }, 60_000);

  it('a restarted process repeats the calls (answered from the ledger) and compensates: nothing is undone twice', async () => {
    const t = setUp(kind);
    try {
      const first = await t.runToEnd('provision-and-undo', 0);
      expect(first.compensation).toEqual(both);
      const second = await t.runToEnd('provision-and-undo', 1);

      // Neither the writes nor the undos ran again: every call had its stored answer.
      expect(second.executions).toBe(0);
      expect(count(second.events, 'call.started')).toBe(0);
      expect(count(second.events, 'call.deduplicated')).toBe(4);
      expect(second.calls.map((c) => (c.ok ? c.value : c))).toEqual(
        first.calls.map((c) => (c.ok ? c.value : c)),
      );
      expect(second.compensation).toEqual(both);
      expect(second.outcome).toMatchObject(both);

      const { vm, dns } = sagaWrites(t.downstream);
      const undos = [undoOf(t.downstream, dns, 0), undoOf(t.downstream, vm, 0)];
      expect(t.downstream.undos()).toEqual(undos);
      expect(t.downstream.undoRequests()).toEqual(undos);
    } finally {
      await t.stopAll();
    }
  }, 60_000);

  const crashed = crashMidUndo(kind);

  it('killed after an undo landed, before it was stored: the restart waits out the lease and does not send that undo again', async () => {
    const { vm, dns, afterCrash, report, records, downstream, waitedOn } = await crashed();
    // A died inside the DNS undo: applied downstream, its claim still in flight, the VM's not begun.
    expect(afterCrash.undos).toEqual([undoOf(downstream, dns, 0)]);
    expect(afterCrash.dns).toMatchObject({ state: 'in_flight' });
    expect(afterCrash.vm).toBeUndefined();

    expect(report.executions).toBe(0);
    // The restart waited on the claim of that very undo, then took it over in doubt.
    expect(waitedOn).toBe(undoKeyOf(dns));
    // The undo in doubt is not re-sent (this compensation declares neither `idempotent` nor
    // `reconcile`): reported failed, its record uncertain for every later process. The
    // older write is still undone, by B, with A's receipt read back from the ledger.
    expect(report.compensation).toEqual({
      compensated: ['create_vm'],
      failed: ['configure_dns'],
      not_compensable: [],
    });
    expect(report.outcome).toMatchObject({ compensated: ['create_vm'], failed: ['configure_dns'] });
    const undos = [undoOf(downstream, dns, 0), undoOf(downstream, vm, 1)];
    expect(downstream.undoRequests()).toEqual(undos);
    expect(downstream.undos()).toEqual(undos);
    expect(records.dns).toMatchObject({ state: 'uncertain' });
    expect(records.vm).toMatchObject({ state: 'completed' });
  }, 60_000);

  // The undo may have landed (here it did): a person must look, so its key is listed like
  // any write in doubt, and the summary says so instead of "failed".
  it('lists the undo left in doubt under needs_reconciliation, with its key', async () => {
    const { dns, report } = await crashed();
    expect(report.outcome.needs_reconciliation ?? []).toContainEqual({
      tool: 'configure_dns.compensate',
      idempotency_key: undoKeyOf(dns),
      code: 'RECONCILE_BY_HAND',
    });
    expect(report.outcome).toMatchObject({
      status: 'PARTIAL_RESULT',
      reason: 'NEEDS_RECONCILIATION',
    });
    expect(report.outcome.summary).toContain('in doubt, not re-sent: configure_dns');
    expect(report.outcome.summary).not.toContain('not undone (failed)');
  }, 60_000);

  it('an undo declared idempotent is replayed behind its key after the crash: undone once, nothing in doubt', async () => {
    const { vm, dns, report, records, downstream } = await crashMidUndo(kind, {
      idempotentUndo: true,
    })();
    expect(report.compensation).toEqual(both);
    expect(report.outcome.needs_reconciliation).toBeUndefined();
    // Two requests of the DNS undo under one key (A's, then B's replay), applied once.
    expect(downstream.undoRequests()).toEqual([
      undoOf(downstream, dns, 0),
      undoOf(downstream, dns, 1),
      undoOf(downstream, vm, 1),
    ]);
    expect(downstream.undos()).toEqual([undoOf(downstream, dns, 0), undoOf(downstream, vm, 1)]);
    expect(records.dns).toMatchObject({ state: 'completed' });
  }, 60_000);

  it('an undo refused once with a 503 is retried under the same key and lands once', async () => {
    const t = setUp(kind, { refuseFirstUndo: true });
    try {
      const report = await t.runToEnd('provision-and-undo', 0);
      expect(report.compensation).toEqual(both);
      const { vm, dns } = sagaWrites(t.downstream);
      const undos = [undoOf(t.downstream, dns, 0), undoOf(t.downstream, vm, 0)];
      expect(t.downstream.undoRequests()).toEqual([undos[0], undos[0], undos[1], undos[1]]);
      expect(t.downstream.undos()).toEqual(undos);
      expect(count(report.events, 'failure.classified')).toBe(2);
      expect(count(report.events, 'retry.scheduled')).toBe(2);
      const ledger = openLedger(t.store, leaseMs);
      try {
        for (const write of [vm, dns])
          expect(await ledger.get(undoKeyOf(write))).toMatchObject({ state: 'completed' });
      } finally {
        await ledger.close?.();
      }
    } finally {
      await t.stopAll();
    }
  }, 60_000);
});
