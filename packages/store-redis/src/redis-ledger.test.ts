import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { InvalidOptionsError, LeaseLostError, LedgerUnavailableError } from '@recourse/core';
import { createFakeClock } from '@recourse/core/testing';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { RedisLedger } from './index.js';

const url = process.env.RECOURSE_REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `recourse-test:${randomUUID()}:`;
const opened: RedisLedger[] = [];

function open(options: Partial<ConstructorParameters<typeof RedisLedger>[0]> = {}): RedisLedger {
  const ledger = new RedisLedger({ url, keyPrefix: prefix, ...options } as ConstructorParameters<
    typeof RedisLedger
  >[0]);
  opened.push(ledger);
  return ledger;
}

afterAll(async () => {
  for (const ledger of opened) await ledger.close();
  const admin = new Redis(url);
  const keys = await admin.keys(`${prefix}*`);
  if (keys.length > 0) await admin.del(...keys);
  await admin.quit();
});

describe('RedisLedger when Redis is down', () => {
  it('rejects quickly with LedgerUnavailableError naming the store, never acquiring', async () => {
    const ledger = open({ url: 'redis://127.0.0.1:1' });
    const started = Date.now();
    const claim = ledger.claim({ key: 'k', payloadHash: 'h' });
    await expect(claim).rejects.toBeInstanceOf(LedgerUnavailableError);
    await expect(claim).rejects.toMatchObject({ store: 'redis', code: 'LEDGER_UNAVAILABLE' });
    await expect(ledger.get('k')).rejects.toBeInstanceOf(LedgerUnavailableError);
    await expect(ledger.incrementCounter('run', 'n')).rejects.toBeInstanceOf(
      LedgerUnavailableError,
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('rejects every call after close() on its own client', async () => {
    const ledger = open();
    await ledger.claim({ key: `closed-${randomUUID()}`, payloadHash: 'h' });
    await ledger.close();
    await expect(ledger.claim({ key: 'k2', payloadHash: 'h' })).rejects.toBeInstanceOf(
      LedgerUnavailableError,
    );
  });
});

describe('RedisLedger when its connection is killed', () => {
  it('reports the lost call as unavailable at worst, then reconnects and keeps its data', async () => {
    const name = `recourse-kill-${randomUUID()}`;
    const ledger = open({ url: `${url}?connectionName=${name}` });
    const key = `kill-${randomUUID()}`;
    const claimed = await ledger.claim({ key, payloadHash: 'h' });
    const admin = new Redis(url);
    const clients = (await admin.client('LIST')) as string;
    const id = clients
      .split('\n')
      .find((line) => line.includes(`name=${name}`))
      ?.match(/^id=(\d+)/)?.[1];
    expect(id).toBeDefined();
    expect(await admin.client('KILL', 'ID', id ?? '')).toBe(1);
    await admin.quit();
    const during = await ledger.get(key).then(
      (record) => ({ record }),
      (error: unknown) => ({ error }),
    );
    if ('error' in during) expect(during.error).toBeInstanceOf(LedgerUnavailableError);
    else expect(during.record).toMatchObject({ state: 'in_flight' });
    expect(await ledger.claim({ key, payloadHash: 'h' })).toMatchObject({ status: 'in_flight' });
    expect(claimed.status).toBe('acquired');
  });
});

describe('RedisLedger options', () => {
  it.each([['http://127.0.0.1:6379'], ['not a url'], ['']])(
    'rejects the url %j naming the field',
    (bad) => {
      const attempt = () => new RedisLedger({ url: bad });
      expect(attempt).toThrow(InvalidOptionsError);
      expect(attempt).toThrow(expect.objectContaining({ field: 'url' }));
    },
  );

  it('rejects a non-positive leaseMs and retentionMs naming the field', () => {
    expect(() => new RedisLedger({ url, leaseMs: 0 })).toThrow(
      expect.objectContaining({ field: 'leaseMs' }),
    );
    expect(() => new RedisLedger({ url, retentionMs: Number.NaN })).toThrow(
      expect.objectContaining({ field: 'retentionMs' }),
    );
  });

  it('rejects url and client together', () => {
    const client = new Redis(url, { lazyConnect: true });
    const both = { url, client } as unknown as ConstructorParameters<typeof RedisLedger>[0];
    expect(() => new RedisLedger(both)).toThrow(expect.objectContaining({ field: 'url' }));
    client.disconnect();
  });
});

describe('RedisLedger with a client you own', () => {
  it('does not quit your client on close()', async () => {
    const client = new Redis(url);
    const ledger = new RedisLedger({ client, keyPrefix: prefix });
    const claim = await ledger.claim({ key: `own-${randomUUID()}`, payloadHash: 'h' });
    expect(claim.status).toBe('acquired');
    await ledger.close();
    expect(client.status).toBe('ready');
    expect(await client.ping()).toBe('PONG');
    await client.quit();
  });
});

describe('RedisLedger storage', () => {
  it('takes lease times from the injected clock and sets a Redis expiry for garbage collection', async () => {
    const clock = createFakeClock(1_000_000);
    const ledger = open({ clock, leaseMs: 500, retentionMs: 10_000 });
    const key = `lease-${randomUUID()}`;
    await ledger.claim({ key, payloadHash: 'h' });
    expect(await ledger.get(key)).toMatchObject({ state: 'in_flight', leaseExpiresAt: 1_000_500 });
    const admin = new Redis(url);
    const ttl = await admin.pttl(`${prefix}record:${key}`);
    await admin.quit();
    expect(ttl).toBeGreaterThan(10_500);
    expect(ttl).toBeLessThanOrEqual(10_500 + 60 * 60 * 1000);
  });

  it('fences a worker whose lease expired out of a newer claim', async () => {
    const clock = createFakeClock(5_000);
    const first = open({ clock, leaseMs: 100 });
    const second = open({ clock, leaseMs: 100 });
    const key = `fence-${randomUUID()}`;
    const a = await first.claim({ key, payloadHash: 'h' });
    await clock.advance(100);
    const b = await second.claim({ key, payloadHash: 'h' });
    expect(b).toMatchObject({ status: 'acquired', previous: 'expired' });
    if (a.status !== 'acquired' || b.status !== 'acquired') throw new Error('claims failed');
    await expect(first.complete(key, a.token, 'late')).rejects.toBeInstanceOf(LeaseLostError);
    expect(await first.release(key, a.token)).toBe(false);
    expect(await first.markUncertain(key, a.token)).toBe(false);
    await second.complete(key, b.token, { ok: true });
    expect(await first.claim({ key, payloadHash: 'h' })).toEqual({
      status: 'completed',
      result: { ok: true },
    });
  });
});

describe('RedisLedger across separate connections', () => {
  it('lets exactly one of 8 clients acquire each of 50 keys claimed concurrently', async () => {
    const clock = createFakeClock(0);
    const workers = Array.from({ length: 8 }, () => open({ clock }));
    const keys = Array.from({ length: 50 }, (_, i) => `race-${randomUUID()}-${i}`);
    const results = await Promise.all(
      workers.flatMap((worker) => keys.map((key) => worker.claim({ key, payloadHash: 'h' }))),
    );
    const acquired = results.filter((r) => r.status === 'acquired');
    expect(acquired).toHaveLength(50);
    expect(results.filter((r) => r.status === 'in_flight')).toHaveLength(50 * 7);
    const tokens = new Set(acquired.map((r) => (r.status === 'acquired' ? r.token : '')));
    expect(tokens.size).toBe(50);
  });
});

describe('RedisLedger against a server that accepts connections and never answers', () => {
  it('gives up within its timeouts (about 5 s) with LedgerUnavailableError', async () => {
    const server = createServer(() => {});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      const ledger = open({ url: `redis://127.0.0.1:${port}` });
      const started = Date.now();
      await expect(ledger.claim({ key: 'k', payloadHash: 'h' })).rejects.toMatchObject({
        name: 'LedgerUnavailableError',
        store: 'redis',
      });
      expect(Date.now() - started).toBeLessThan(8_000);
      await ledger.close();
    } finally {
      server.close();
    }
  });
});
