import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createHarness, httpFailure } from '../../test-support/runtime-harness.js';
import {
  canRetryWithin,
  createRetryBudget,
  type RetryBudget,
  recordBudgetOutcome,
} from './retry-budget.js';

describe('createRetryBudget', () => {
  it('stops retries during an outage and resumes as successes refill it', () => {
    const budget = createRetryBudget({ maxTokens: 10, tokenRatio: 1 });
    let allowed = 0;
    for (let i = 0; i < 100; i++) {
      if (budget.canRetry('api')) allowed++;
      budget.recordFailure('api');
    }
    expect(allowed).toBe(5); // more than half of 10 tokens left: 10, 9, 8, 7, 6
    expect(budget.canRetry('api')).toBe(false);
    expect(budget.canRetry('other')).toBe(true); // per dependency
    for (let i = 0; i < 6; i++) budget.recordSuccess('api');
    expect(budget.canRetry('api')).toBe(true);
  });

  it('property: retries never exceed half the bucket plus the ratio of successes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.boolean(), { maxLength: 500 }),
        fc.integer({ min: 2, max: 100 }),
        fc.double({ min: 0.01, max: 1, noNaN: true }),
        (outcomes, maxTokens, tokenRatio) => {
          const budget = createRetryBudget({ maxTokens, tokenRatio });
          let retries = 0;
          let successes = 0;
          for (const success of outcomes) {
            if (success) {
              successes++;
              budget.recordSuccess('d');
            } else {
              if (budget.canRetry('d')) retries++;
              budget.recordFailure('d');
            }
          }
          expect(retries).toBeLessThanOrEqual(
            Math.ceil(maxTokens / 2) + tokenRatio * successes + 1,
          );
        },
      ),
    );
  });

  it('rejects invalid options with the field name', () => {
    expect(() => createRetryBudget({ maxTokens: 0 })).toThrow(/retry\.budget\.maxTokens/);
    expect(() => createRetryBudget({ tokenRatio: -1 })).toThrow(/retry\.budget\.tokenRatio/);
    expect(() => createRetryBudget({ maxTokens: 2, tokenRatio: 3 })).toThrow(/tokenRatio/);
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
