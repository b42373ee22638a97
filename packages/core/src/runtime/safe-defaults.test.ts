import { describe, expect, it } from 'vitest';
import {
  createHarness,
  httpFailure,
  timeoutAfterWrite,
} from '../../test-support/runtime-harness.js';
import { InvalidOptionsError } from '../errors.js';
import { MemoryLedger } from '../ledger/memory-ledger.js';
import { createFakeClock } from '../testing/fake-clock.js';
import { callContext } from './call-context.js';

const refused = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });

describe('a tool that does not declare its side effects may write', () => {
  it('a timeout is not re-sent, and a repeat of the in-doubt operation is not sent either', async () => {
    const h = createHarness();
    const sent: string[] = [];
    const send = () => {
      sent.push(callContext().idempotencyKey);
      throw timeoutAfterWrite();
    };
    const first = await h.run('transfer', { to: 'acct-9', amount: 5 }, send);
    expect(first).toMatchObject({
      ok: false,
      contract: {
        failure_class: 'UNKNOWN_OUTCOME',
        recommended_recovery: 'ABORT',
        code: 'RECONCILE_BY_HAND',
      },
    });
    const again = await createHarness({}, { ledger: h.ledger, clock: h.clock }).run(
      'transfer',
      { amount: 5, to: 'acct-9' },
      send,
    );
    expect(again).toMatchObject({
      ok: false,
      contract: { code: 'RECONCILE_BY_HAND', retry_same_action: false },
    });
    expect(sent).toHaveLength(1);
    expect(h.runtime.outcome()).toMatchObject({
      status: 'FAILED',
      needs_reconciliation: [{ tool: 'transfer', idempotency_key: sent[0] }],
    });
  });

  it('failures that prove nothing was processed are still retried: refused, 429, 503', async () => {
    for (const failure of [refused(), httpFailure(429), httpFailure(503)]) {
      const h = createHarness();
      let calls = 0;
      const result = await h.run('notify', { id: 1 }, () => {
        if (++calls === 1) throw failure;
        return 'sent';
      });
      expect(result).toMatchObject({ ok: true, value: 'sent' });
      expect(calls).toBe(2);
    }
  });

  it('a success is not deduplicated: the same read twice runs twice', async () => {
    const h = createHarness();
    let runs = 0;
    await h.run('search', { q: 'x' }, () => ++runs);
    await h.run('search', { q: 'x' }, () => ++runs);
    expect(runs).toBe(2);
  });

  it('says so once per tool with policy.undeclared; a setting from defaultPolicy counts as declared', async () => {
    const h = createHarness({ policies: { known: { sideEffects: true } } });
    await h.run('search', {}, () => 1);
    await h.run('search', {}, () => 1);
    await h.run('known', {}, () => 1);
    expect(
      h.events.filter((e) => e.type === 'policy.undeclared').map((e) => 'tool' in e && e.tool),
    ).toEqual(['search']);
    const declared = createHarness({ defaultPolicy: { sideEffects: false } });
    await declared.run('search', {}, () => 1);
    expect(declared.events.some((e) => e.type === 'policy.undeclared')).toBe(false);
  });

  it('defaultPolicy applies to every tool; a tool’s own policy overrides it field by field', async () => {
    const h = createHarness({
      defaultPolicy: { sideEffects: false, maxAttempts: 2 },
      policies: { charge: { sideEffects: true }, lookup: { sideEffects: undefined } },
    });
    expect(h.runtime.policyFor('charge')).toMatchObject({ sideEffects: true, maxAttempts: 2 });
    expect(h.runtime.policyFor('lookup')).toMatchObject({ sideEffects: false });
    let calls = 0;
    const result = await h.run('lookup', {}, () => {
      calls++;
      throw httpFailure(503);
    });
    expect(calls).toBe(2);
    expect(result).toMatchObject({ ok: false, contract: { code: 'ATTEMPTS_EXHAUSTED' } });
  });
});

describe('options are checked completely', () => {
  const cases: [Record<string, unknown>, string, string | undefined][] = [
    [
      { policies: { refund_payment: { sideEffect: true } } },
      'policies.refund_payment.sideEffect',
      'sideEffects',
    ],
    [{ retyr: { maxAttempts: 2 } }, 'retyr', 'retry'],
    [{ retry: { maxAttempt: 2 } }, 'retry.maxAttempt', 'maxAttempts'],
    [{ scope: { alow: ['x'] } }, 'scope.alow', 'allow'],
    [
      { defaultPolicy: { reconcil: () => ({ happened: false }) } },
      'defaultPolicy.reconcil',
      'reconcile',
    ],
    [{ policies: { t: { timeout: 5 } } }, 'policies.t.timeout', 'timeoutMs'],
    [{ somethingElse: 1 }, 'somethingElse', undefined],
    [{ retry: { budget: { maxToken: 3 } } }, 'retry.budget.maxToken', 'maxTokens'],
  ];
  it.each(cases)('%j throws InvalidOptionsError at %s', (options, field, meant) => {
    let caught: unknown;
    try {
      createHarness(options);
    } catch (error) {
      caught = error;
    }
    expect(InvalidOptionsError.isInstance(caught)).toBe(true);
    const error = caught as InvalidOptionsError;
    expect(error.field).toBe(field);
    expect(error.message).toContain(field);
    if (meant) expect(error.message).toContain(`did you mean "${meant}"?`);
    else expect(error.message).not.toContain('did you mean');
  });
});

describe('a per-attempt deadline', () => {
  it('aborts the attempt’s signal, stops waiting for it, and retries a read', async () => {
    const h = createHarness({ policies: { slow: { sideEffects: false, timeoutMs: 1_000 } } });
    let calls = 0;
    const result = await h.run('slow', {}, (_input) => {
      calls++;
      if (calls === 1) return new Promise(() => {}); // never settles, ignores its signal
      return 'fast';
    });
    expect(result).toMatchObject({ ok: true, value: 'fast' });
    expect(calls).toBe(2);
    expect(h.events.find((e) => e.type === 'failure.classified')).toMatchObject({
      classification: { failureClass: 'TRANSIENT', code: 'TIMEOUT' },
    });
  });

  it('is UNKNOWN_OUTCOME for a write: not re-sent, reconcile by hand', async () => {
    const h = createHarness({
      retry: { timeoutMs: 500 },
      policies: { pay: { sideEffects: true } },
    });
    let calls = 0;
    const result = await h.run('pay', {}, () => {
      calls++;
      return new Promise(() => {});
    });
    expect(calls).toBe(1);
    expect(result).toMatchObject({
      ok: false,
      contract: { failure_class: 'UNKNOWN_OUTCOME', code: 'RECONCILE_BY_HAND' },
    });
  });

  it('hands the tool a signal that aborts at the deadline or on the caller’s abort; without a deadline, the caller’s own', async () => {
    const clock = createFakeClock(0);
    const h = createHarness(
      { clock, policies: { t: { sideEffects: false, timeoutMs: 100 }, u: { sideEffects: false } } },
      { clock },
    );
    const caller = new AbortController();
    let seen: AbortSignal | undefined;
    const pending = h.runtime.execute({
      toolName: 't',
      toolCallId: 'c1',
      input: {},
      signal: caller.signal,
      execute: (_input, signal) => {
        seen = signal;
        return new Promise(() => {});
      },
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).not.toBe(caller.signal);
    expect(seen?.aborted).toBe(false);
    await clock.advance(100);
    expect(seen?.aborted).toBe(true);
    expect(String(seen?.reason)).toMatch(/did not settle within 100 ms/);
    caller.abort(new Error('user stop'));
    await expect(pending).rejects.toThrow('user stop');
    // A caller that aborted already: the tool is not called at all.
    let own: AbortSignal | undefined;
    const call = (signal: AbortSignal, toolCallId: string) =>
      h.runtime.execute({
        toolName: 'u',
        toolCallId,
        input: {},
        signal,
        execute: (_input, given) => {
          own = given;
          return 1;
        },
      });
    await expect(call(caller.signal, 'c2')).rejects.toThrow('user stop');
    expect(own).toBeUndefined();
    const live = new AbortController();
    await call(live.signal, 'c3');
    expect(own).toBe(live.signal);
  });
});

describe('reconcile answers are validated', () => {
  const answers: [string, () => unknown][] = [
    ['true', () => true],
    ["'yes'", () => 'yes'],
    ['{ happend: true }', () => ({ happend: true })],
    ["{ happened: 'yes' }", () => ({ happened: 'yes' })],
    ['undefined', () => undefined],
    [
      'a throw',
      () => {
        throw new Error('payments API down');
      },
    ],
    [
      'a rejection',
      async () => {
        throw new Error('payments API down');
      },
    ],
  ];
  it.each(answers)(
    '%s → RECONCILE_FAILED: in doubt, listed, never re-sent',
    async (_label, answer) => {
      const h = createHarness({
        policies: { refund: { sideEffects: true, reconcile: answer as () => { happened: false } } },
      });
      const sends: string[] = [];
      const result = await h.run('refund', { p: 1 }, () => {
        sends.push('lost');
        throw timeoutAfterWrite();
      });
      const again = await h.run('refund', { p: 1 }, () => sends.push('again'));
      expect(sends).toEqual(['lost']);
      expect(result).toMatchObject({
        ok: false,
        contract: { code: 'RECONCILE_FAILED', retry_same_action: false },
      });
      expect(again).toMatchObject({ ok: false });
      expect(h.runtime.outcome().needs_reconciliation).toEqual([
        expect.objectContaining({ tool: 'refund', code: 'RECONCILE_FAILED' }),
      ]);
    },
  );

  it('{ happened: true } without a result is a completed write; other keys are ignored', async () => {
    const h = createHarness({
      policies: {
        refund: { sideEffects: true, reconcile: () => ({ happened: true, extra: 1 }) as never },
      },
    });
    const result = await h.run('refund', {}, () => {
      throw timeoutAfterWrite();
    });
    expect(result).toMatchObject({ ok: true, value: undefined, deduplicated: true });
  });
});

describe('a result JSON cannot hold', () => {
  const cyclic: Record<string, unknown> = { id: 'r-1' };
  cyclic.self = cyclic;
  const values: [string, unknown][] = [
    ['a BigInt', { amount: 10n }],
    ['a cycle', cyclic],
    ['a function deep inside', { a: [{ b: () => 1 }] }],
    ['a symbol', { s: Symbol('x') }],
    [
      'a throwing toJSON',
      {
        toJSON: () => {
          throw new Error('no');
        },
      },
    ],
  ];
  it.each(values)(
    '%s: the caller gets it; duplicates get RESULT_NOT_STORED and nothing runs again',
    async (_label, value) => {
      const h = createHarness({ policies: { refund: { sideEffects: true } } });
      let runs = 0;
      const first = await h.run('refund', { p: 1 }, () => {
        runs++;
        return value;
      });
      expect(first).toMatchObject({ ok: true, deduplicated: false });
      expect((first as { value: unknown }).value).toBe(value);
      const restarted = createHarness(
        { policies: { refund: { sideEffects: true } } },
        { ledger: h.ledger, clock: h.clock },
      );
      const duplicate = await restarted.run('refund', { p: 1 }, () => ++runs);
      expect(runs).toBe(1);
      expect(duplicate).toMatchObject({
        ok: false,
        contract: {
          failure_class: 'UNKNOWN_OUTCOME',
          recommended_recovery: 'REOBSERVE',
          retry_same_action: false,
          code: 'RESULT_NOT_STORED',
        },
      });
      expect(h.events.find((e) => e.type === 'result.unstorable')).toMatchObject({
        tool: 'refund',
      });
    },
  );

  it('undefined is stored as nothing and replayed as undefined', async () => {
    const h = createHarness({ policies: { notify: { sideEffects: true } } });
    await h.run('notify', {}, () => undefined);
    let runs = 0;
    expect(await h.run('notify', {}, () => ++runs)).toMatchObject({
      ok: true,
      value: undefined,
      deduplicated: true,
    });
    expect(runs).toBe(0);
  });
});

describe('a poison step stays poison before it runs', () => {
  const invalid = () => {
    throw httpFailure(422, 'field total must be a number');
  };
  it('in this process, on another worker and after a restart: the operation never runs again', async () => {
    const clock = createFakeClock(0);
    const ledger = new MemoryLedger({ clock });
    const options = { onPoison: 'replan' as const, policies: { extract: { sideEffects: false } } };
    const h = createHarness(options, { ledger, clock });
    for (let i = 0; i < 3; i++) await h.run('extract', { text: 'x' }, invalid);
    let runs = 0;
    const counted = () => {
      runs++;
      return 'ok';
    };
    for (const runtime of [h, createHarness(options, { ledger, clock })]) {
      expect(await runtime.run('extract', { text: 'x' }, counted)).toMatchObject({
        ok: false,
        contract: { code: 'POISON', failure_class: 'VALIDATION', retry_same_action: false },
      });
    }
    expect(runs).toBe(0);
    // Another input of the same tool still runs.
    expect(await h.run('extract', { text: 'y' }, counted)).toMatchObject({ ok: true });
  });
});

describe('the outcome tells what recourse did', () => {
  it('lists the calls it recovered, names them in the summary, and counts an operation once', async () => {
    const h = createHarness({
      policies: {
        refund: { sideEffects: true, reconcile: () => ({ happened: true, result: 'refunded' }) },
        lookup: { sideEffects: false },
      },
    });
    let lookups = 0;
    await h.run(
      'lookup',
      { id: 1 },
      () => {
        if (++lookups === 1) throw httpFailure(503);
        return 'found';
      },
      'call_a',
    );
    await h.run(
      'refund',
      { p: 1 },
      () => {
        throw timeoutAfterWrite();
      },
      'call_b',
    );
    await h.run('refund', { p: 1 }, () => 'never', 'call_c'); // answered from the ledger
    const outcome = h.runtime.outcome();
    expect(outcome.status).toBe('COMPLETED');
    expect(outcome.recoveries).toEqual([
      {
        tool: 'lookup',
        tool_call_id: 'call_a',
        failure_class: 'TRANSIENT',
        code: 'SERVICE_UNAVAILABLE',
        action: 'RETRY',
        attempts: 2,
      },
      {
        tool: 'refund',
        tool_call_id: 'call_b',
        failure_class: 'UNKNOWN_OUTCOME',
        code: 'TIMEOUT',
        action: 'RECONCILE',
        attempts: 1,
      },
    ]);
    expect(outcome.summary).toMatch(
      /recovered 2 failed calls: lookup \(SERVICE_UNAVAILABLE, retried\), refund \(TIMEOUT, reconciled\)/,
    );
    expect(outcome.completed_steps).toEqual(['lookup', 'refund']);
  });

  it('ATTEMPTS_EXHAUSTED when the call ran out, DEPENDENCY_RETRY_BUDGET_EXHAUSTED when the budget stopped it', async () => {
    const h = createHarness({ defaultPolicy: { sideEffects: false } });
    const down = () => {
      throw httpFailure(503);
    };
    expect(await h.run('a', {}, down)).toMatchObject({ contract: { code: 'ATTEMPTS_EXHAUSTED' } });
    const budget = {
      canRetry: () => false,
      recordFailure: () => {},
      recordSuccess: () => {},
      tokens: () => 0,
    };
    const starved = createHarness({ defaultPolicy: { sideEffects: false }, retry: { budget } });
    expect(await starved.run('a', {}, down)).toMatchObject({
      contract: { code: 'DEPENDENCY_RETRY_BUDGET_EXHAUSTED' },
    });
  });
});
