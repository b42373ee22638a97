import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openFileDownstream } from './downstream.js';
import { startWorker } from './spawn-worker.js';
import { createStoreSpec, dropStore, openLedger, type StoreSpec, storeKinds } from './stores.js';

const dir = mkdtempSync(join(tmpdir(), 'recourse-workers-'));
const specs: StoreSpec[] = [];
afterAll(async () => {
  await Promise.all(specs.map(dropStore));
  rmSync(dir, { recursive: true, force: true });
});

const workerCount = 8;
const operations = 30;

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(keyOf(item), [...(groups.get(keyOf(item)) ?? []), item]);
  return groups;
}

describe.each(storeKinds)('%s ledger: many workers, one run', (kind) => {
  it(`executes each of ${operations} writes once across ${workerCount} processes and hands every duplicate the stored result`, async () => {
    const store = createStoreSpec(kind, dir);
    specs.push(store);
    const downstreamDir = join(dir, `downstream-${randomUUID()}`);
    mkdirSync(downstreamDir);
    const runId = `run-${randomUUID()}`;
    const workers = Array.from({ length: workerCount }, (_, worker) =>
      startWorker({
        scenario: 'hammer',
        worker,
        runId,
        store,
        leaseMs: 30_000,
        downstreamDir,
        operations,
      }),
    );
    try {
      await Promise.all(workers.map((w) => w.ready));
      for (const w of workers) w.go();
      const reports = await Promise.all(workers.map((w) => w.finished));

      const writes = openFileDownstream(downstreamDir, { dedupe: false }).writes();
      const writesByKey = groupBy(writes, (line) => line.key);
      expect(writes).toHaveLength(operations);
      expect(writesByKey.size).toBe(operations);

      const calls = reports.flatMap((r) => r.calls);
      expect(calls).toHaveLength(workerCount * operations);
      const failed = calls.filter((c) => !c.ok);
      expect(failed).toEqual([]);
      // Every call of one operation got the same receipt: the executing worker's.
      const byCall = groupBy(calls, (c) => c.call);
      expect(byCall.size).toBe(operations);
      const executors = new Set(writes.map((line) => line.worker));
      for (const [call, results] of byCall) {
        // Deep equality, not JSON text: PostgreSQL's jsonb hands results back with its own key order.
        const values = results.map((r) => (r.ok ? r.value : undefined));
        for (const value of values) expect(value, call).toEqual(values[0]);
        expect(executors.has((values[0] as { executedBy: number }).executedBy)).toBe(true);
      }
      expect(reports.reduce((sum, r) => sum + r.executions, 0)).toBe(operations);
      // More than one process won some writes: the race was real.
      expect(executors.size).toBeGreaterThan(1);
      expect(
        reports.flatMap((r) => r.events).filter((e) => e === 'call.deduplicated'),
      ).toHaveLength(workerCount * operations - operations);

      const ledger = openLedger(store, 30_000);
      try {
        for (const line of writes)
          expect(await ledger.get(line.key)).toMatchObject({ state: 'completed' });
      } finally {
        await ledger.close?.();
      }
    } finally {
      await Promise.all(workers.map((w) => w.kill()));
    }
  }, 90_000);
});
