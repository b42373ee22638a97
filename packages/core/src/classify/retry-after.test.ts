import { describe, expect, it } from 'vitest';
import { parseRetryAfterMs } from './retry-after.js';

const now = Date.parse('2026-03-01T12:00:00Z');

describe('parseRetryAfterMs', () => {
  it('reads retry-after as delta seconds', () => {
    expect(parseRetryAfterMs({ 'retry-after': '2' }, now)).toBe(2000);
    expect(parseRetryAfterMs({ 'retry-after': '0.5' }, now)).toBe(500);
  });

  it('reads retry-after as an HTTP date against now', () => {
    expect(parseRetryAfterMs({ 'retry-after': 'Sun, 01 Mar 2026 12:00:30 GMT' }, now)).toBe(30_000);
  });

  it('clamps a date in the past to 0', () => {
    expect(parseRetryAfterMs({ 'retry-after': 'Sun, 01 Mar 2026 11:00:00 GMT' }, now)).toBe(0);
  });

  it('prefers retry-after-ms over retry-after', () => {
    expect(parseRetryAfterMs({ 'retry-after-ms': '150', 'retry-after': '5' }, now)).toBe(150);
  });

  it('reads OpenAI reset durations', () => {
    expect(parseRetryAfterMs({ 'x-ratelimit-reset-requests': '1s' }, now)).toBe(1000);
    expect(parseRetryAfterMs({ 'x-ratelimit-reset-requests': '6m0s' }, now)).toBe(360_000);
    expect(parseRetryAfterMs({ 'x-ratelimit-reset-tokens': '20ms' }, now)).toBe(20);
    expect(parseRetryAfterMs({ 'x-ratelimit-reset-tokens': '1h2m3.5s' }, now)).toBe(3_723_500);
  });

  it('waits for the exhausted OpenAI limit, else the later reset', () => {
    const both = { 'x-ratelimit-reset-requests': '2s', 'x-ratelimit-reset-tokens': '30s' };
    expect(parseRetryAfterMs(both, now)).toBe(30_000);
    expect(parseRetryAfterMs({ ...both, 'x-ratelimit-remaining-requests': '0' }, now)).toBe(2000);
  });

  it('reads the reset time of an exhausted Anthropic limit', () => {
    const headers = {
      'anthropic-ratelimit-requests-remaining': '12',
      'anthropic-ratelimit-requests-reset': '2026-03-01T12:00:05Z',
      'anthropic-ratelimit-output-tokens-remaining': '0',
      'anthropic-ratelimit-output-tokens-reset': '2026-03-01T12:00:20Z',
    };
    expect(parseRetryAfterMs(headers, now)).toBe(20_000);
    // Nothing exhausted: no wait is implied.
    expect(
      parseRetryAfterMs({ ...headers, 'anthropic-ratelimit-output-tokens-remaining': '5' }, now),
    ).toBeUndefined();
    expect(parseRetryAfterMs({ ...headers, 'retry-after': '3' }, now)).toBe(3000);
  });

  it('reads x-ratelimit-reset as epoch seconds or as a delta', () => {
    expect(parseRetryAfterMs({ 'x-ratelimit-reset': String(now / 1000 + 42) }, now)).toBe(42_000);
    expect(parseRetryAfterMs({ 'x-ratelimit-reset': '7' }, now)).toBe(7000);
    expect(parseRetryAfterMs({ 'x-ratelimit-reset': String(now / 1000 - 10) }, now)).toBe(0);
  });

  it('reads ratelimit-reset (IETF draft) as delta seconds', () => {
    expect(parseRetryAfterMs({ 'ratelimit-reset': '3' }, now)).toBe(3000);
  });

  it('reads a fetch Headers object', () => {
    expect(parseRetryAfterMs(new Headers({ 'Retry-After': '4' }), now)).toBe(4000);
  });

  it('ignores garbage', () => {
    for (const value of ['soon', '-5', '12abc', '', '  ', 'NaN', 'Infinity', '1e3', '5 seconds']) {
      expect(parseRetryAfterMs({ 'retry-after': value }, now), value).toBeUndefined();
    }
    expect(parseRetryAfterMs({ 'x-ratelimit-reset-requests': '1x' }, now)).toBeUndefined();
    expect(parseRetryAfterMs({}, now)).toBeUndefined();
  });

  it('falls through garbage to the next header', () => {
    expect(parseRetryAfterMs({ 'retry-after': 'soon', 'ratelimit-reset': '1' }, now)).toBe(1000);
  });

  it('survives a headers object whose get throws', () => {
    const hostile = {
      get() {
        throw new Error('no');
      },
    };
    expect(parseRetryAfterMs(hostile, now)).toBeUndefined();
  });
});
