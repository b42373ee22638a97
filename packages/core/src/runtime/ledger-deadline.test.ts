import { describe, expect, it } from 'vitest';
import { createHarness, drive, httpFailure } from '../../test-support/runtime-harness.js';
import type { Clock } from '../clock.js';
import { InvalidOptionsError } from '../errors.js';
import type { ClaimResult, Ledger } from '../ledger/ledger.js';
import { MemoryLedger } from '../ledger/memory-ledger.js';
import { createFakeClock, type FakeClock } from '../testing/fake-clock.js';
import { createRecoveryRuntime } from './create-runtime.js';
import { createLedgerDeadline } from './ledger-deadline.js';

type Operation = 'claim' | 'complete' | 'listFacts' | 'getRepairs';

/**
 * A third-party store in front of a MemoryLedger whose chosen operations never answer (a
 * connection that hangs without an error), each as many times as given (default: always).
 * It has neither `watchFacts` (every call reads the facts) nor `renew` (no lease ticker).
 */
function hangingLedger(inner: MemoryLedger, hang: Partial<Record<Operation, number>>) {
  const asked: Record<Operation, number> = { claim: 0, complete: 0, listFacts: 0, getRepairs: 0 };
  const never = new Promise<never>(() => {});
  const hangs = (operation: Operation) => ++asked[operation] <= (hang[operation] ?? 0);
  const ledger: Ledger = {
    name: 'hanging',
    leaseMs: inner.leaseMs,
    claim: (request) => (hangs('claim') ? never : inner.claim(request)),
    complete: (key, token, result) =>
      hangs('complete') ? never : inner.complete(key, token, result),
    release: (key, token) => inner.release(key, token),
    markUncertain: (key, token, note) => inner.markUncertain(key, token, note),
    get: (key) => inner.get(key),
    addRepair: (runId, fingerprint) => inner.addRepair(runId, fingerprint),
    getRepairs: (runId, fingerprint) =>
      hangs('getRepairs') ? never : inner.getRepairs(runId, fingerprint),
    addFact: (runId, kind, id, fact) => inner.addFact(runId, kind, id, fact),
    listFacts: (runId) => (hangs('listFacts') ? never : inner.listFacts(runId)),
    close: () => inner.close(),
  };
  return { ledger, asked };
}

const always = Number.POSITIVE_INFINITY;

function setUp(
  hang: Partial<Record<Operation, number>>,
  options: Parameters<typeof createHarness>[0] = {},
) {
  const clock = createFakeClock(1_000_000);
  const inner = new MemoryLedger({ clock });
  const store = hangingLedger(inner, hang);
  const h = createHarness(
    {
      ledger: store.ledger,
      clock,
      policies: { refund: { sideEffects: true }, lookup: { sideEffects: false } },
      ...options,
    },
    { clock },
  );
  return { h, clock, inner, ...store };
}

describe('ledgerTimeoutMs, the option', () => {
  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY, '5s', null])(
    'rejects %s, naming the field',
    (value) => {
      const create = () =>
        createRecoveryRuntime({ runId: 'r', ledgerTimeoutMs: value as unknown as number });
      expect(create).toThrow(InvalidOptionsError);
      try {
        create();
      } catch (error) {
        expect((error as InvalidOptionsError).field).toBe('ledgerTimeoutMs');
      }
    },
  );

  it('suggests the option for a near miss', () => {
    expect(() =>
      createRecoveryRuntime({ runId: 'r', ledgerTimeout: 100 } as unknown as { runId: string }),
    ).toThrow(/did you mean "ledgerTimeoutMs"/);
  });
});

describe('a claim that never answers', () => {
  it('fails closed: LEDGER_UNAVAILABLE after the claim was asked within the attempts, nothing executed', async () => {
    const { h, clock, asked } = setUp({ claim: always }, { ledgerTimeoutMs: 250 });
    let executed = 0;
    const result = await h.run('refund', { id: 1 }, () => ++executed);
    expect(executed).toBe(0);
    expect(result).toMatchObject({
      ok: false,
      contract: {
        failure_class: 'TRANSIENT',
        code: 'LEDGER_UNAVAILABLE',
        recommended_recovery: 'ABORT',
        retry_same_action: false,
      },
    });
    if (result.ok) throw new Error('unreachable');
    expect(result.contract.error_detail).toContain('claim did not answer within 250 ms');
    // Asked as often as a store that throws: the runtime's five attempts.
    expect(asked.claim).toBe(5);
    expect(clock.sleeps.filter((ms) => ms === 250)).toHaveLength(5);
    expect(h.runtime.outcome()).toMatchObject({ status: 'FAILED', reason: 'LEDGER_UNAVAILABLE' });
    expect(clock.pending()).toBe(0); // no deadline left behind
  });

  it('a claim that is granted after its deadline is given back: nothing ran under it', async () => {
    const clock = createFakeClock(1_000_000);
    const inner = new MemoryLedger({ clock });
    let grant: (() => void) | undefined;
    const ledger: Ledger = Object.assign(hangingLedger(inner, {}).ledger, {
      claim: (request: Parameters<Ledger['claim']>[0]) =>
        grant === undefined && executed === 0
          ? new Promise<ClaimResult>((resolve) => {
              grant = () => resolve(inner.claim(request));
            })
          : inner.claim(request),
    });
    let executed = 0;
    const h = createHarness(
      { ledger, clock, retry: { maxAttempts: 1 }, policies: { refund: { sideEffects: true } } },
      { clock },
    );
    const first = await h.run('refund', { id: 1 }, () => ++executed);
    expect(first).toMatchObject({ ok: false, contract: { code: 'LEDGER_UNAVAILABLE' } });
    const key = first.ok ? '' : (first.contract.idempotency_key ?? '');
    grant?.(); // the store finally answers: acquired
    await drive(clock, Promise.resolve());
    expect(await inner.get(key)).toBeUndefined();
    // So the same operation runs normally next time (a new run of the same id), once.
    const next = createHarness(
      { ledger, clock, policies: { refund: { sideEffects: true } } },
      { clock },
    );
    expect(await next.run('refund', { id: 1 }, () => ++executed)).toMatchObject({
      ok: true,
      value: 1,
    });
    expect(executed).toBe(1);
    expect((await inner.get(key))?.state).toBe('completed');
  });
});

describe('a complete that never answers, after the write ran', () => {
  it('returns the result, reports result.not-stored, and a duplicate is not re-sent', async () => {
    const { h, clock, inner, asked } = setUp({ complete: always });
    const sent: number[] = [];
    const refund = () => {
      sent.push(clock.now());
      return { refundId: 'r-1' };
    };
    const first = await h.run('refund', { id: 1 }, refund);
    expect(first).toMatchObject({ ok: true, value: { refundId: 'r-1' } });
    expect(asked.complete).toBe(1);
    const notStored = h.events.filter((e) => e.type === 'result.not-stored');
    expect(notStored).toHaveLength(1);
    expect(notStored[0]).toMatchObject({
      tool: 'refund',
      reason: expect.stringContaining('complete did not answer within 5000 ms'),
    });
    const key = notStored[0]?.idempotencyKey ?? '';
    expect((await inner.get(key))?.state).toBe('in_flight');
    expect(h.runtime.outcome().status).toBe('COMPLETED');

    // The model asks again: the claim is in flight, so it waits, then says so; not sent.
    const again = await h.run('refund', { id: 1 }, refund);
    expect(again).toMatchObject({
      ok: false,
      contract: { status: 'IN_FLIGHT', code: 'IN_FLIGHT', retry_same_action: false },
    });
    // Once the lease ran out, the key is in doubt: still not re-sent blindly.
    await clock.advance(inner.leaseMs);
    const later = await h.run('refund', { id: 1 }, refund);
    expect(later).toMatchObject({
      ok: false,
      contract: { code: 'RECONCILE_BY_HAND', retry_same_action: false },
    });
    expect(sent).toHaveLength(1);
  });

  it('a complete that fails is reported the same way, and the caller keeps its result', async () => {
    const clock = createFakeClock(0);
    const ledger = new MemoryLedger({ clock });
    ledger.complete = async () => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), {
        code: 'ECONNREFUSED',
      });
    };
    const h = createHarness(
      { ledger, clock, policies: { refund: { sideEffects: true } } },
      { clock },
    );
    expect(await h.run('refund', { id: 2 }, () => 'refunded')).toMatchObject({
      ok: true,
      value: 'refunded',
    });
    expect(h.events.find((e) => e.type === 'result.not-stored')).toMatchObject({
      reason: expect.stringContaining('ECONNREFUSED'),
    });
  });
});

describe('reads before execution that never answer', () => {
  it("the run's facts: neither a read nor a write runs, LEDGER_UNAVAILABLE", async () => {
    const { h, asked } = setUp({ listFacts: always }, { retry: { maxAttempts: 2 } });
    let executed = 0;
    const read = await h.run('lookup', { id: 1 }, () => ++executed);
    expect(read).toMatchObject({
      ok: false,
      contract: { code: 'LEDGER_UNAVAILABLE', recommended_recovery: 'ABORT' },
    });
    if (read.ok) throw new Error('unreachable');
    expect(read.contract.error_detail).toContain('listFacts did not answer within 5000 ms');
    expect(asked.listFacts).toBe(2);
    expect(executed).toBe(0);
    expect(h.runtime.outcome()).toMatchObject({ status: 'FAILED', reason: 'LEDGER_UNAVAILABLE' });
  });

  it("the run's facts answering again: the call runs", async () => {
    const { h, asked } = setUp({ listFacts: 1 });
    let executed = 0;
    expect(await h.run('lookup', { id: 1 }, () => ++executed)).toMatchObject({
      ok: true,
      value: 1,
    });
    expect(asked.listFacts).toBe(2); // timed out once, then asked again after a backoff
    expect(executed).toBe(1);
  });

  it('a denial known here still refuses while the facts cannot be read', async () => {
    const { h } = setUp(
      {},
      {
        onDenial: 'continue',
        policies: { fetch: { sideEffects: false, resource: (i: { url: string }) => i.url } },
      },
    );
    await h.run('fetch', { url: 'https://a.test/x' }, () => {
      throw httpFailure(403);
    });
    // No hang here: the store is hung only from now on (same runtime, same facts known).
    const store = h.runtime.ledger as ReturnType<typeof hangingLedger>['ledger'];
    const never = new Promise<never>(() => {});
    store.listFacts = () => never;
    const again = await h.run('fetch', { url: 'https://a.test/x' }, () => 'read');
    expect(again).toMatchObject({ ok: false, contract: { status: 'BLOCKED' } });
  });

  it('repair counts: a failure that may be poison is not repaired again; a transient one is retried', async () => {
    const { h, asked } = setUp({ getRepairs: always });
    let validation = 0;
    const invalid = await h.run('lookup', { id: 'x' }, () => {
      validation++;
      throw httpFailure(422, 'id must be a number');
    });
    expect(validation).toBe(1);
    expect(invalid).toMatchObject({
      ok: false,
      contract: {
        failure_class: 'VALIDATION',
        code: 'LEDGER_UNAVAILABLE',
        recommended_recovery: 'ABORT',
      },
    });
    expect(asked.getRepairs).toBe(1);

    const { h: other } = setUp({ getRepairs: always });
    let transient = 0;
    const retried = await other.run('lookup', { id: 1 }, () => {
      if (++transient === 1) throw httpFailure(503);
      return 'ok';
    });
    expect(retried).toMatchObject({ ok: true, value: 'ok' });
    expect(transient).toBe(2);
  });
});

describe('the cost of the deadline', () => {
  it('a store that answers at once (MemoryLedger) gets no timer at all', async () => {
    const h = createHarness({ policies: { refund: { sideEffects: true } } });
    expect(await h.run('refund', { id: 1 }, () => 'ok')).toMatchObject({ ok: true });
    // The only sleep is the lease ticker's (a third of the lease), none of 5 000 ms.
    expect(h.clock.sleeps).toEqual([10_000]);
  });

  it('another store whose answers are already settled gets no timer either', async () => {
    const { h, clock, asked } = setUp({});
    expect(await h.run('refund', { id: 1 }, () => 'ok')).toMatchObject({ ok: true });
    expect(asked.claim).toBe(1);
    expect(asked.complete).toBe(1);
    expect(clock.sleeps).toEqual([]); // this store has no renew: no lease ticker either
  });

  it('a store that answers later gets one timer per operation, stopped when it answers', async () => {
    const clock = createFakeClock(0);
    const inner = new MemoryLedger({ clock });
    const later = async <T>(answer: () => Promise<T>): Promise<T> => {
      for (let i = 0; i < 3; i++) await Promise.resolve(); // a round trip, without time
      return answer();
    };
    const ledger: Ledger = Object.assign(hangingLedger(inner, {}).ledger, {
      claim: (request: Parameters<Ledger['claim']>[0]) => later(() => inner.claim(request)),
      complete: (...args: Parameters<Ledger['complete']>) => later(() => inner.complete(...args)),
    });
    const h = createHarness(
      { ledger, clock, policies: { refund: { sideEffects: true } } },
      { clock },
    );
    expect(await h.run('refund', { id: 1 }, () => 'ok')).toMatchObject({ ok: true });
    expect(clock.sleeps.filter((ms) => ms === 5_000)).toHaveLength(2);
    expect(clock.pending()).toBe(0);
  });

  it('the deadline does not keep the process alive', async () => {
    const fake = createFakeClock(0);
    const unref: (boolean | undefined)[] = [];
    const clock: Clock = {
      now: fake.now,
      sleep: (ms, signal, options) => {
        unref.push(options?.unref);
        return fake.sleep(ms, signal);
      },
    };
    const deadline = createLedgerDeadline({ name: 'test' }, clock, 100);
    const answered = deadline.bound('claim', new Promise((resolve) => setImmediate(resolve, 'x')));
    expect(await answered).toBe('x');
    expect(unref).toEqual([true]);
    expect(fake.pending()).toBe(0);
  });

  it('rejects with LedgerUnavailableError once the deadline passed', async () => {
    const clock: FakeClock = createFakeClock(0);
    const deadline = createLedgerDeadline({ name: 'redis' }, clock, 100);
    const pending = deadline.bound('listFacts', new Promise(() => {}));
    const caught = pending.catch((error: unknown) => error);
    await clock.advance(100);
    expect(await caught).toMatchObject({
      name: 'LedgerUnavailableError',
      code: 'LEDGER_UNAVAILABLE',
      message: 'redis ledger unavailable: listFacts did not answer within 100 ms',
    });
  });
});
