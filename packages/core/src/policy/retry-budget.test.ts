import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRetryBudget } from './retry-budget.js';

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
  });
});
