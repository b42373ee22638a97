import { randomUUID } from 'node:crypto';
import { InvalidOptionsError } from '@recourse/core';
import { createFakeClock } from '@recourse/core/testing';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisRetryBudget, type RedisRetryBudget } from './index.js';

const url = process.env.RECOURSE_REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `recourse-test:${randomUUID()}:`;
const opened: RedisRetryBudget[] = [];

/** A budget on its own client, as a separate process would have. */
function open(
  options: Parameters<typeof createRedisRetryBudget>[1] = {},
  target: Parameters<typeof createRedisRetryBudget>[0] = { url },
): RedisRetryBudget {
  const budget = createRedisRetryBudget(target, { keyPrefix: prefix, ...options });
  opened.push(budget);
  return budget;
}

afterAll(async () => {
  for (const budget of opened) await budget.close();
  const admin = new Redis(url);
  const keys = await admin.keys(`${prefix}*`);
  if (keys.length > 0) await admin.del(...keys);
  await admin.quit();
});

describe('createRedisRetryBudget shared by two processes', () => {
  it('failures recorded through one open the circuit for the other; one probe goes out fleet-wide; a success closes it', async () => {
    const clock = createFakeClock(0);
    const a = open({ maxTokens: 10, tokenRatio: 1, tripAfter: 3, probeIntervalMs: 1_000, clock });
    const b = open({ maxTokens: 10, tokenRatio: 1, tripAfter: 3, probeIntervalMs: 1_000, clock });
    const dependency = `api-${randomUUID()}`;
    expect(await b.canRetry(dependency)).toBe(true);
    expect(await b.tokens(dependency)).toBe(10); // a missing bucket is full
    expect(await b.retryInMs(dependency)).toBeUndefined();
    for (let i = 0; i < 2; i++) await a.recordFailure(dependency);
    expect(await b.canRetry(dependency)).toBe(true); // two in a row: still closed
    await a.recordFailure(dependency);
    expect(await b.canRetry(dependency)).toBe(false); // three in a row: open
    expect(await b.retryInMs(dependency)).toBe(1_000);
    await clock.advance(1_000);
    expect(await a.canRetry(dependency)).toBe(true); // the probe, through A
    expect(await b.canRetry(dependency)).toBe(false); // and only one, fleet-wide
    await b.recordSuccess(dependency);
    expect(await a.canRetry(dependency)).toBe(true);
    expect(await a.tokens(dependency)).toBe(10); // closed and refilled
  });

  it('keeps the bucket within [0, maxTokens] and fractional ratios exact enough', async () => {
    const a = open({ maxTokens: 3, tokenRatio: 0.1, tripAfter: 100 });
    const dependency = `clamp-${randomUUID()}`;
    await a.recordFailure(dependency);
    for (let i = 0; i < 3; i++) await a.recordSuccess(dependency);
    expect(await a.tokens(dependency)).toBeCloseTo(2.3, 12);
    for (let i = 0; i < 100; i++) await a.recordSuccess(dependency);
    expect(await a.tokens(dependency)).toBe(3);
    for (let i = 0; i < 10; i++) await a.recordFailure(dependency);
    expect(await a.tokens(dependency)).toBe(0);
  });

  it('loses no token under concurrent updates from two clients', async () => {
    const a = open({ maxTokens: 100, tripAfter: 1_000 });
    const b = open({ maxTokens: 100, tripAfter: 1_000 });
    const dependency = `race-${randomUUID()}`;
    await Promise.all(
      Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).recordFailure(dependency)),
    );
    expect(await a.tokens(dependency)).toBe(40);
  });

  it('keeps dependencies independent', async () => {
    const a = open({ maxTokens: 2 });
    const b = open({ maxTokens: 2 });
    // One failure takes half of two tokens: open.
    const down = `down-${randomUUID()}`;
    const up = `up-${randomUUID()}`;
    await a.recordFailure(down);
    expect(await b.canRetry(down)).toBe(false);
    expect(await b.canRetry(up)).toBe(true);
    expect(await b.tokens(up)).toBe(2);
  });

  it('gives each bucket an expiry of ttlMs, renewed on every change', async () => {
    const a = open({ ttlMs: 60_000 });
    const dependency = `ttl-${randomUUID()}`;
    const admin = new Redis(url);
    try {
      await a.recordFailure(dependency);
      const key = `${prefix}budget:${dependency}`;
      const ttl = await admin.pttl(key);
      expect(ttl).toBeGreaterThan(50_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
      await admin.pexpire(key, 1_000);
      await a.recordSuccess(dependency);
      expect(await admin.pttl(key)).toBeGreaterThan(50_000);
      expect(await admin.hget(key, 'tokens')).toBe('9.0999999999999996'); // 10 - 1 + 0.1
    } finally {
      await admin.quit();
    }
  });
});

describe('createRedisRetryBudget when Redis is down', () => {
  it('never rejects, throttles on its local mirror, and stops asking Redis for fallbackMs', async () => {
    const clock = createFakeClock(0);
    const errors: unknown[] = [];
    const budget = open(
      { maxTokens: 4, tokenRatio: 1, clock, fallbackMs: 1_000, onError: (e) => errors.push(e) },
      { url: 'redis://127.0.0.1:1' },
    );
    expect(await budget.canRetry('api')).toBe(true);
    expect(errors).toHaveLength(1);
    for (let i = 0; i < 2; i++) await budget.recordFailure('api');
    expect(await budget.canRetry('api')).toBe(false); // 2 of 4 locally: open
    await budget.recordSuccess('api');
    expect(await budget.canRetry('api')).toBe(true); // closed by the success
    expect(errors).toHaveLength(1);
    await budget.recordFailure('api');
    await clock.advance(1_000);
    expect(await budget.tokens('api')).toBe(3); // Redis tried again, local answer again
    expect(errors).toHaveLength(2);
    expect(errors[1]).toBeInstanceOf(Error);
  });

  it('falls back mid-run when a passed client is disconnected, and leaves it to its owner', async () => {
    const client = new Redis(url);
    await client.ping();
    const budget = open({ maxTokens: 4, tokenRatio: 1 }, { client });
    const observer = open({ maxTokens: 4, tokenRatio: 1 });
    const dependency = `mid-${randomUUID()}`;
    await budget.recordFailure(dependency);
    expect(await observer.tokens(dependency)).toBe(3); // reached Redis
    await budget.close();
    expect(client.status).toBe('ready'); // close() leaves a passed client open
    client.disconnect();
    await expect(budget.recordFailure(dependency)).resolves.toBeUndefined();
    expect(await budget.canRetry(dependency)).toBe(false); // local mirror saw both failures
    expect(await observer.tokens(dependency)).toBe(3); // the second never reached Redis
  });

  it('close() quits a client it created; later calls still answer locally', async () => {
    const budget = open({ maxTokens: 4 });
    await budget.recordFailure('x');
    await budget.close();
    await expect(budget.canRetry('x')).resolves.toBe(true);
    await expect(budget.recordFailure('x')).resolves.toBeUndefined();
  });
});

describe('createRedisRetryBudget options', () => {
  it('rejects bad options with InvalidOptionsError naming the field', () => {
    const bad = (
      target: Parameters<typeof createRedisRetryBudget>[0],
      options: Parameters<typeof createRedisRetryBudget>[1],
      field: string,
    ) => {
      expect(() => createRedisRetryBudget(target, options)).toThrow(InvalidOptionsError);
      expect(() => createRedisRetryBudget(target, options)).toThrow(new RegExp(field));
    };
    bad({ url }, { maxTokens: 0 }, 'maxTokens');
    bad({ url }, { tokenRatio: 0 }, 'tokenRatio');
    bad({ url }, { ttlMs: 0 }, 'ttlMs');
    bad({ url }, { fallbackMs: -1 }, 'fallbackMs');
    bad({ url }, { keyPrefix: 3 as unknown as string }, 'keyPrefix');
    bad({ url: 'http://x' }, {}, 'url');
    bad({ url, client: new Redis({ lazyConnect: true }) } as never, {}, 'url');
  });
});
