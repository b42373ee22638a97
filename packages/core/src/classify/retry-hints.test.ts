import { describe, expect, it } from 'vitest';
import { classifyFailure } from './classify-failure.js';

const limited = (extra: Record<string, unknown>) => ({
  status: 429,
  message: 'slow down',
  ...extra,
});

describe('retryAfterMs from the places clients keep it besides headers', () => {
  it('reads retryAfterMs (ms) and retryAfter (seconds) fields', () => {
    expect(classifyFailure(limited({ retryAfterMs: 1200 })).retryAfterMs).toBe(1200);
    expect(classifyFailure(limited({ retryAfter: 7 })).retryAfterMs).toBe(7000);
    expect(classifyFailure(limited({ retryAfter: -3 })).retryAfterMs).toBe(0);
  });

  it('reads a RetryInfo retryDelay as a string or a { seconds, nanos } object', () => {
    expect(classifyFailure(limited({ retryDelay: '1.5s' })).retryAfterMs).toBe(1500);
    expect(classifyFailure(limited({ retryDelay: { seconds: '2', nanos: 0 } })).retryAfterMs).toBe(
      2000,
    );
    expect(classifyFailure(limited({ details: [{ retryDelay: '4s' }] })).retryAfterMs).toBe(4000);
  });

  it('a header wins over a body hint; only TRANSIENT failures carry a wait', () => {
    const both = limited({ headers: { 'retry-after': '3' }, retryAfter: 60 });
    expect(classifyFailure(both).retryAfterMs).toBe(3000);
    const denied = { status: 403, retryAfter: 60 };
    expect(classifyFailure(denied).retryAfterMs).toBeUndefined();
  });

  it('ignores malformed hints', () => {
    for (const retryDelay of ['17', '17 s', '-1s', 'abc', { seconds: 'x' }]) {
      expect(classifyFailure(limited({ retryDelay })).retryAfterMs).toBeUndefined();
    }
  });
});
