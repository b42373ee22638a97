import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Downstream, startDownstream } from './downstream-server.js';
import { killPlans } from './kill-plan.js';
import type { WriteTool } from './protocol.js';
import type { JobRecord } from './run-batches.js';
import { tally } from './tally.js';

// The benchmark's own counting (the engines' runs are the benchmark's, not a test's).
let downstream: Downstream;
beforeAll(async () => {
  downstream = await startDownstream();
});
afterAll(() => downstream.close());

const write = (jobId: string, tool: WriteTool, key: string) =>
  fetch(`${downstream.url}/write`, {
    method: 'POST',
    body: JSON.stringify({ jobId, tool, key }),
  });

describe('the killed benchmark downstream', () => {
  it('holds the planned request unapplied, applies it on release, and counts a re-send as a duplicate', async () => {
    downstream.plan('j1', 'charge_card', 'held');
    const held: string[] = [];
    downstream.onHeld = (jobId) => held.push(jobId);
    const first = write('j1', 'charge_card', 'k1');
    await expect.poll(() => held).toEqual(['j1']);
    expect(downstream.counts('j1').charge_card).toEqual({ requests: 1, applied: 0 });
    downstream.release();
    await expect(first).rejects.toThrow();
    expect(downstream.counts('j1').charge_card).toEqual({ requests: 1, applied: 1 });
    const found = await fetch(`${downstream.url}/find?tool=charge_card&key=k1`);
    expect(await found.json()).toMatchObject({ found: true });
    expect((await write('j1', 'charge_card', 'k1')).ok).toBe(true);
    expect(downstream.counts('j1').charge_card).toEqual({ requests: 2, applied: 2 });
  });

  it('applies an after-apply request at once and dedupes the stock write on its key', async () => {
    downstream.plan('j2', 'reserve_stock', 'after-apply');
    const first = write('j2', 'reserve_stock', 'k2');
    await expect.poll(() => downstream.counts('j2').reserve_stock.applied).toBe(1);
    downstream.release();
    await expect(first).rejects.toThrow();
    expect((await write('j2', 'reserve_stock', 'k2')).ok).toBe(true);
    expect(downstream.counts('j2').reserve_stock).toEqual({ requests: 2, applied: 1 });
  });
});

const record = (
  applied: [number, number, number],
  end: JobRecord['end'],
  strategy: JobRecord['strategy'] = 'alone',
): JobRecord => ({
  strategy,
  plan: { index: 0, write: 'charge_card', point: 'held' },
  reachedPoint: true,
  end,
  counts: {
    reserve_stock: { requests: applied[0], applied: applied[0] },
    charge_card: { requests: applied[1], applied: applied[1] },
    send_letter: { requests: applied[2], applied: applied[2] },
  },
});
const all = ['reserve_stock', 'charge_card', 'send_letter'];

describe('the killed benchmark tally', () => {
  it('counts correct completions, duplicates, lost writes, writes in doubt and unfinished jobs', () => {
    const done = (d: string[], inDoubt: string[] = [], status = 'COMPLETED') =>
      ({ kind: 'result', result: { status, done: d, inDoubt } }) as const;
    expect(
      tally([
        record([1, 1, 1], done(all)),
        record([1, 2, 1], done(all)),
        record([1, 0, 1], done(all)),
        record([1, 1, 1], done(['reserve_stock', 'charge_card'], ['send_letter'], 'FAILED')),
        record([1, 0, 0], { kind: 'unfinished' }),
      ]),
    ).toEqual({
      jobs: 5,
      correct: 1,
      duplicates: 1,
      lost: 3,
      inDoubt: 1,
      unfinished: 1,
      missedPoint: 0,
    });
  });

  it('plans the same kills for the same seed', () => {
    expect(killPlans(7, 20)).toEqual(killPlans(7, 20));
    expect(killPlans(7, 20)).not.toEqual(killPlans(8, 20));
  });
});
