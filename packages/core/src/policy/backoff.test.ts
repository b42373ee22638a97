import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeBackoff, defaultBackoff, validateBackoff } from './backoff.js';

describe('computeBackoff', () => {
  it('reproduces the 200 ms, 800 ms, 3200 ms ceilings of the retry table', () => {
    const top = () => 1;
    expect([1, 2, 3].map((n) => computeBackoff(n, { ...defaultBackoff }, top))).toEqual([
      { retry: true, delayMs: 200 },
      { retry: true, delayMs: 800 },
      { retry: true, delayMs: 3200 },
    ]);
  });

  it('is deterministic under an injected random source', () => {
    const a = computeBackoff(2, { ...defaultBackoff }, () => 0.25);
    const b = computeBackoff(2, { ...defaultBackoff }, () => 0.25);
    expect(a).toEqual(b);
    expect(a).toEqual({ retry: true, delayMs: 500 }); // equal jitter: 400 + 0.25 × 400
  });

  it('equal jitter keeps a floor of half the ceiling; full jitter can reach zero', () => {
    const bottom = () => 0;
    expect([1, 2, 3].map((n) => computeBackoff(n, { ...defaultBackoff }, bottom))).toEqual([
      { retry: true, delayMs: 100 },
      { retry: true, delayMs: 400 },
      { retry: true, delayMs: 1600 },
    ]);
    const full = { ...defaultBackoff, jitter: 'full' as const };
    expect(computeBackoff(3, full, bottom)).toEqual({ retry: true, delayMs: 0 });
    expect(computeBackoff(3, full, () => 0.5)).toEqual({ retry: true, delayMs: 1600 });
  });

  it('property: stays within [0, cap] and honours the server hint as a floor', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.option(fc.integer({ min: 0, max: 120_000 }), { nil: undefined }),
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 1000, max: 60_000 }),
        (retry, unit, hint, baseDelayMs, maxDelayMs) => {
          const options = { baseDelayMs, factor: 4, maxDelayMs, jitter: 'equal' as const };
          const result = computeBackoff(retry, options, () => unit, hint);
          if (hint !== undefined && hint > maxDelayMs) {
            expect(result).toEqual({
              retry: false,
              reason: 'RETRY_AFTER_TOO_LONG',
              retryAfterMs: hint,
            });
            return;
          }
          expect(result.retry).toBe(true);
          if (!result.retry) return;
          expect(result.delayMs).toBeGreaterThanOrEqual(hint ?? 0);
          const ceiling = Math.min(maxDelayMs, baseDelayMs * 4 ** (retry - 1));
          expect(result.delayMs).toBeGreaterThanOrEqual(Math.floor(ceiling / 2));
          expect(result.delayMs).toBeLessThanOrEqual(Math.max(maxDelayMs, hint ?? 0));
          expect(result.delayMs).toBeLessThanOrEqual(
            Math.max(baseDelayMs * 4 ** (retry - 1), hint ?? 0),
          );
        },
      ),
    );
  });

  it('a broken random source cannot produce a negative or NaN delay', () => {
    for (const value of [Number.NaN, -3, 7, Number.POSITIVE_INFINITY]) {
      const result = computeBackoff(1, { ...defaultBackoff }, () => value);
      expect(result.retry && result.delayMs >= 100 && result.delayMs <= 200).toBe(true);
    }
  });

  it('rejects invalid options with the field name', () => {
    expect(() => validateBackoff({ baseDelayMs: -1 })).toThrow(/retry\.baseDelayMs/);
    expect(() => validateBackoff({ factor: 0.5 })).toThrow(/retry\.factor/);
    expect(() => validateBackoff({ jitter: 'none' as 'full' })).toThrow(/retry\.jitter/);
  });
});
