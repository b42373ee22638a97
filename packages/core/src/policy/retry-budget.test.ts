import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createHarness, drive, httpFailure } from '../../test-support/runtime-harness.js';
import { MemoryLedger } from '../ledger/memory-ledger.js';
import { createFakeClock } from '../testing/fake-clock.js';
import {
  canRetryWithin,
  createRetryBudget,
  type RetryBudget,
  recordBudgetOutcome,
} from './retry-budget.js';

describe('createRetryBudget', () => {
  const make = (options: Parameters<typeof createRetryBudget>[0] = {}) => {
    const clock = createFakeClock(0);
    return { clock, budget: createRetryBudget({ clock, ...options }) };
  };

  it('opens after tripAfter failures in a row: retries stop, one probe per interval goes through', async () => {
    const { clock, budget } = make({ tripAfter: 3, probeIntervalMs: 1_000 });
    for (let i = 0; i < 2; i++) budget.recordFailure('api');
    expect(budget.canRetry('api')).toBe(true);
    budget.recordFailure('api');
    expect(budget.canRetry('api')).toBe(false);
    expect(budget.retryInMs('api')).toBe(1_000);
    expect(budget.canRetry('other')).toBe(true); // per dependency
    await clock.advance(1_000);
    expect(budget.canRetry('api')).toBe(true); // the probe
    expect(budget.canRetry('api')).toBe(false); // only one
    expect(budget.retryInMs('api')).toBe(1_000);
  });

  it('closes at the first success and refills, so retries resume as soon as the dependency answers', () => {
    const { budget } = make({ maxTokens: 10 });
    for (let i = 0; i < 8; i++) budget.recordFailure('api');
    expect(budget.canRetry('api')).toBe(false);
    budget.recordSuccess('api');
    expect(budget.canRetry('api')).toBe(true);
    expect(budget.tokens('api')).toBe(10);
    expect(budget.retryInMs('api')).toBeUndefined();
  });

  it('a success between failures resets the run of failures; a high failure rate still opens it', () => {
    const { budget } = make({ maxTokens: 10, tokenRatio: 0.1, tripAfter: 3 });
    const open: boolean[] = [];
    for (let i = 0; i < 5; i++) {
      budget.recordFailure('api');
      budget.recordFailure('api');
      open.push(!budget.canRetry('api'));
      budget.recordSuccess('api');
    }
    // Two failures in a row never trip it; the draining bucket does, in the third round
    // (10 - 6 + 0.2 tokens, below half), and each success closes it again.
    expect(open).toEqual([false, false, true, false, false]);
  });

  it('property: while open, retries let through never exceed one per probe interval', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ wait: fc.integer({ min: 0, max: 700 }), ask: fc.boolean() }), {
          maxLength: 200,
        }),
        (steps) => {
          let now = 0;
          const budget = createRetryBudget({ clock: { now: () => now }, probeIntervalMs: 1_000 });
          for (let i = 0; i < 3; i++) budget.recordFailure('d');
          let allowed = 0;
          for (const step of steps) {
            now += step.wait;
            if (step.ask && budget.canRetry('d')) allowed++;
          }
          expect(allowed).toBeLessThanOrEqual(Math.floor(now / 1_000) + 1);
        },
      ),
    );
  });

  it('rejects invalid options with the field name', () => {
    expect(() => createRetryBudget({ maxTokens: 0 })).toThrow(/retry\.budget\.maxTokens/);
    expect(() => createRetryBudget({ tokenRatio: -1 })).toThrow(/retry\.budget\.tokenRatio/);
    expect(() => createRetryBudget({ maxTokens: 2, tokenRatio: 3 })).toThrow(/tokenRatio/);
    expect(() => createRetryBudget({ tripAfter: 0 })).toThrow(/retry\.budget\.tripAfter/);
    expect(() => createRetryBudget({ probeIntervalMs: -1 })).toThrow(/probeIntervalMs/);
  });
});

describe('canRetryWithin and recordBudgetOutcome', () => {
  const broken: RetryBudget = {
    canRetry: () => {
      throw new Error('store down');
    },
    recordFailure: () => Promise.reject(new Error('store down')),
    recordSuccess: () => {
      throw new Error('store down');
    },
    tokens: () => Promise.reject(new Error('store down')),
  };

  it('awaits an asynchronous budget', async () => {
    const local = createRetryBudget({ maxTokens: 2, tokenRatio: 1 });
    const remote: RetryBudget = {
      canRetry: async (d) => local.canRetry(d),
      recordFailure: async (d) => local.recordFailure(d),
      recordSuccess: async (d) => local.recordSuccess(d),
      tokens: async (d) => local.tokens(d),
    };
    expect(await canRetryWithin(remote, 'api')).toBe(true);
    await recordBudgetOutcome(remote, 'api', 'failure');
    expect(await canRetryWithin(remote, 'api')).toBe(false); // 1 token of 2: not more than half
    await recordBudgetOutcome(remote, 'api', 'success');
    expect(await canRetryWithin(remote, 'api')).toBe(true);
  });

  it('fails open and swallows errors from a budget that throws or rejects', async () => {
    expect(await canRetryWithin(broken, 'api')).toBe(true);
    await expect(
      Promise.resolve(recordBudgetOutcome(broken, 'api', 'failure')),
    ).resolves.toBeUndefined();
    await expect(
      Promise.resolve(recordBudgetOutcome(broken, 'api', 'success')),
    ).resolves.toBeUndefined();
    expect(await canRetryWithin(undefined, 'api')).toBe(true);
  });

  it('a runtime whose budget store is down still completes calls and retries', async () => {
    const h = createHarness({ retry: { budget: broken } });
    let calls = 0;
    const result = await h.run('geocode', {}, () => {
      if (++calls < 3) throw httpFailure(503);
      return 'ok';
    });
    expect(result).toMatchObject({ ok: true, value: 'ok' });
    expect(calls).toBe(3);
  });

  it('a runtime awaits an asynchronous budget that says no', async () => {
    const no: RetryBudget = {
      canRetry: async () => false,
      recordFailure: async () => {},
      recordSuccess: async () => {},
      tokens: async () => 0,
    };
    const h = createHarness({ retry: { budget: no } });
    let calls = 0;
    const result = await h.run('geocode', {}, () => {
      calls++;
      throw httpFailure(503);
    });
    expect(calls).toBe(1);
    expect(result).toMatchObject({
      ok: false,
      decision: { action: 'ABORT', code: 'DEPENDENCY_RETRY_BUDGET_EXHAUSTED' },
    });
  });
});

describe('a runtime during an outage of a dependency', () => {
  it('sends only first attempts and one probe per interval, then retries resume when it answers', async () => {
    const clock = createFakeClock(0);
    const ledger = new MemoryLedger({ clock });
    const budget = createRetryBudget({ clock, probeIntervalMs: 1_000 });
    let down = 0;
    const calls = Array.from({ length: 8 }, (_, i) => {
      const h = createHarness(
        {
          runId: `run-${i}`,
          retry: { budget },
          defaultPolicy: { sideEffects: false, dependency: 'inventory' },
        },
        { ledger, clock },
      );
      return h.runtime.execute({
        toolName: 'check_inventory',
        toolCallId: `call-${i}`,
        input: { sku: i },
        execute: () => {
          if (clock.now() < 3_000) {
            down++;
            throw httpFailure(503);
          }
          return 'in stock';
        },
      });
    });
    const results = await drive(clock, Promise.all(calls));
    expect(results.every((r) => r.ok)).toBe(true);
    // 8 first attempts, the retries sent before the circuit opened, and about one probe a
    // second: far fewer than 8 calls × 5 attempts.
    expect(down).toBeLessThanOrEqual(8 + 3 + 3);
  });
});
