import { describe, expect, it } from 'vitest';
import {
  createHarness,
  drive,
  httpFailure,
  timeoutAfterWrite,
} from '../../test-support/runtime-harness.js';
import { MemoryLedger } from '../ledger/memory-ledger.js';
import { createFakeClock } from '../testing/fake-clock.js';
import { callContext } from './call-context.js';

const notStored = {
  failure_class: 'UNKNOWN_OUTCOME',
  recommended_recovery: 'REOBSERVE',
  retry_same_action: false,
  code: 'RESULT_NOT_STORED',
};

function shared() {
  const clock = createFakeClock(1_000_000);
  return { clock, ledger: new MemoryLedger({ clock }) };
}

describe('a result whose JSON form loses its content is not stored', () => {
  it('a Map deep in the result: the caller gets it, a duplicate after a restart is told to re-read', async () => {
    const store = shared();
    const options = { policies: { sync_items: { sideEffects: true } } };
    const h = createHarness(options, store);
    const value = { items: [1, 2, 3, new Map([['sku-1', 2]])] };
    let runs = 0;
    const first = await h.run('sync_items', { batch: 7 }, () => {
      runs++;
      return value;
    });
    expect(first).toMatchObject({ ok: true, deduplicated: false });
    expect((first as { value: unknown }).value).toBe(value);
    const events = h.events.filter((e) => e.type === 'result.unstorable');
    expect(events).toEqual([
      expect.objectContaining({
        tool: 'sync_items',
        reason: 'the result holds a Map at .items[3]',
      }),
    ]);
    const record = await h.ledger.get(events[0]!.idempotencyKey);
    expect(record).toMatchObject({
      state: 'completed',
      result: { unstorable: 'the result holds a Map at .items[3]' },
    });
    expect(record?.result?.json).toBeUndefined();

    const restarted = createHarness(options, store);
    const duplicate = await restarted.run('sync_items', { batch: 7 }, () => ++runs);
    expect(runs).toBe(1);
    expect(duplicate).toMatchObject({ ok: false, contract: notStored });
    expect(JSON.stringify(duplicate)).toContain('a Map at .items[3]');
  });

  it.each([
    ['a Set', new Set(['a'])],
    ['an Error', new Error('declined')],
    ['a typed array', new Uint8Array([1, 2, 3])],
  ])('%s as the result: a duplicate gets RESULT_NOT_STORED, never {}', async (_label, value) => {
    const store = shared();
    const options = { policies: { pay: { sideEffects: true } } };
    await createHarness(options, store).run('pay', { id: 1 }, () => value);
    const duplicate = await createHarness(options, store).run('pay', { id: 1 }, () => 'again');
    expect(duplicate).toMatchObject({ ok: false, contract: notStored });
  });

  it('a Date and a class instance with own data are stored and replayed as JSON', async () => {
    class Receipt {
      constructor(
        readonly id: string,
        readonly at: Date,
      ) {}
    }
    const store = shared();
    const options = { policies: { pay: { sideEffects: true } } };
    const h = createHarness(options, store);
    await h.run('pay', { id: 1 }, () => new Receipt('re_1', new Date(0)));
    expect(h.events.some((e) => e.type === 'result.unstorable')).toBe(false);
    expect(await createHarness(options, store).run('pay', { id: 1 }, () => 'again')).toMatchObject({
      ok: true,
      deduplicated: true,
      value: { id: 're_1', at: '1970-01-01T00:00:00.000Z' },
    });
  });
});

describe('every path that stores a result says when it could not', () => {
  it('a reconcile that found the write happened, with a result JSON cannot hold: the event, and RESULT_NOT_STORED later', async () => {
    const store = shared();
    const options = {
      policies: {
        refund: {
          sideEffects: true,
          reconcile: () => ({ happened: true, result: { refund: { cents: 10_000n } } }),
        },
      },
    };
    const h = createHarness(options, store);
    let runs = 0;
    const first = await h.run('refund', { id: 1 }, () => {
      runs++;
      throw timeoutAfterWrite();
    });
    expect(first).toMatchObject({ ok: true, deduplicated: true });
    const unstorable = h.events.filter((e) => e.type === 'result.unstorable');
    expect(unstorable).toEqual([
      expect.objectContaining({
        tool: 'refund',
        idempotencyKey: expect.stringContaining('refund'),
        reason: 'the result holds a BigInt at .refund.cents',
      }),
    ]);
    const duplicate = await createHarness(options, store).run('refund', { id: 1 }, () => ++runs);
    expect(runs).toBe(1);
    expect(duplicate).toMatchObject({ ok: false, contract: notStored });
  });

  it('an earlier attempt in doubt, reconciled at the claim as happened with a Map: the event too', async () => {
    const store = shared();
    const reconcile = () => ({ happened: true, result: new Map([['id', 're_1']]) });
    const options = { policies: { refund: { sideEffects: true, reconcile } } };
    // A worker marked the write uncertain (its reconcile failed), then the run restarts.
    const first = createHarness(
      {
        policies: {
          refund: { sideEffects: true, reconcile: () => ({ happend: true }) as never },
        },
      },
      store,
    );
    await first.run('refund', { id: 2 }, () => {
      throw timeoutAfterWrite();
    });
    const h = createHarness(options, store);
    const result = await h.run('refund', { id: 2 }, () => 'never sent');
    expect(result).toMatchObject({ ok: true, deduplicated: true });
    expect(h.events).toContainEqual(
      expect.objectContaining({ type: 'result.unstorable', reason: 'the result is a Map' }),
    );
  });

  it('an undo whose result JSON cannot hold: the event names the compensation', async () => {
    const h = createHarness({
      policies: {
        pay: { sideEffects: true, compensate: () => ({ refunds: new Set(['re_1']) }) },
      },
    });
    await h.run('pay', { id: 1 }, () => 'paid');
    expect(await h.runtime.compensate()).toMatchObject({ compensated: ['pay'] });
    expect(h.events).toContainEqual(
      expect.objectContaining({
        type: 'result.unstorable',
        tool: 'pay.compensate',
        reason: 'the result holds a Set at .refunds',
      }),
    );
  });

  it('an undo proven by its reconcile, with a result JSON cannot hold: the event too', async () => {
    const h = createHarness({
      policies: {
        pay: {
          sideEffects: true,
          compensate: {
            undo: () => {
              throw timeoutAfterWrite();
            },
            reconcile: () => ({ happened: true, result: [Number.NaN] }),
          },
        },
      },
    });
    await h.run('pay', { id: 1 }, () => 'paid');
    expect(await drive(h.clock, h.runtime.compensate())).toMatchObject({ compensated: ['pay'] });
    expect(h.events).toContainEqual(
      expect.objectContaining({
        type: 'result.unstorable',
        tool: 'pay.compensate',
        reason: 'the result holds NaN at [0]',
      }),
    );
  });

  it('a fallback result and a value a check rejected are never stored, so there is nothing to report', async () => {
    const h = createHarness({
      policies: {
        quote: { sideEffects: true, fallback: () => new Map([['price', 1]]) },
        submit: { sideEffects: true, check: () => ({ message: 'rejected' }) },
      },
    });
    const degraded = await h.run('quote', { sku: 'a' }, () => {
      throw httpFailure(404);
    });
    expect(degraded).toMatchObject({ ok: true, degraded: true });
    const rejected = await h.run('submit', { id: 1 }, () => new Map());
    expect(rejected).toMatchObject({ ok: false });
    expect(h.events.some((e) => e.type === 'result.unstorable')).toBe(false);
    // The primary changed nothing: its claim was released, and it runs again.
    let runs = 0;
    await h.run('quote', { sku: 'a' }, () => {
      runs++;
      return callContext().attempt;
    });
    expect(runs).toBe(1);
  });
});
