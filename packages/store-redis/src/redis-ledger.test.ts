import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { InvalidOptionsError, LeaseLostError, LedgerUnavailableError } from '@recourse/core/store';
import { createFakeClock, startTcpProxy } from '@recourse/core/testing';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { RedisLedger } from './redis-ledger.js';

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
  it('rejects with LedgerUnavailableError naming the store, never acquiring', async () => {
    const ledger = open({ url: 'redis://127.0.0.1:1' });
    const claim = ledger.claim({ key: 'k', payloadHash: 'h' });
    await expect(claim).rejects.toBeInstanceOf(LedgerUnavailableError);
    await expect(claim).rejects.toMatchObject({ store: 'redis', code: 'LEDGER_UNAVAILABLE' });
    await expect(ledger.get('k')).rejects.toBeInstanceOf(LedgerUnavailableError);
    await expect(ledger.addRepair('run', 'fp')).rejects.toBeInstanceOf(LedgerUnavailableError);
    await expect(ledger.listFacts('run')).rejects.toBeInstanceOf(LedgerUnavailableError);
  });

  it('keeps a watch not live while Redis is down, and closes it without hanging', async () => {
    const ledger = open({ url: 'redis://127.0.0.1:1' });
    let changes = 0;
    const watch = ledger.watchFacts('run', () => {
      changes += 1;
    });
    // A call that failed has seen the outage; the watch never claimed to be live.
    await expect(ledger.getRepairs('run', 'fp')).rejects.toBeInstanceOf(LedgerUnavailableError);
    expect(watch.live).toBe(false);
    watch.close();
    await ledger.close();
    expect(changes).toBe(0);
    expect(ledger.watchFacts('run', () => {}).live).toBe(false);
  });

  it('leaves nothing of its own open once close() resolves: its connection and its watch connection', async () => {
    const open_ = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap');
    const before = open_().length;
    const ledger = new RedisLedger({ url, keyPrefix: prefix });
    await ledger.claim({ key: `close-${randomUUID()}`, payloadHash: 'h' });
    const watch = ledger.watchFacts('run-close', () => {});
    // Until the watch connection is up (a bounded number of turns, no timer).
    for (let turn = 0; turn < 10_000 && open_().length < before + 2; turn++)
      await new Promise((resolve) => setImmediate(resolve));
    expect(open_()).toHaveLength(before + 2);
    watch.close();
    await ledger.close();
    expect(open_()).toHaveLength(before);
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

  it('rejects a watch heartbeat that is not a positive duration, naming the field', () => {
    expect(() => new RedisLedger({ url, watchHeartbeatMs: 0 })).toThrow(
      expect.objectContaining({ field: 'watchHeartbeatMs' }),
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
    await expect(first.complete(key, a.token, { json: '"late"' })).rejects.toBeInstanceOf(
      LeaseLostError,
    );
    expect(await first.release(key, a.token)).toBe(false);
    expect(await first.markUncertain(key, a.token)).toBe(false);
    await second.complete(key, b.token, { json: '{"ok":true}' });
    expect(await first.claim({ key, payloadHash: 'h' })).toEqual({
      status: 'completed',
      result: { json: '{"ok":true}' },
    });
  });

  it('keeps the result text byte for byte, and reads a record written before results were text', async () => {
    const ledger = open();
    const key = `text-${randomUUID()}`;
    const claim = await ledger.claim({ key, payloadHash: 'h' });
    if (claim.status !== 'acquired') throw new Error(claim.status);
    const json = '{ "b": 1,\n "a": "\\u00e9\u00e9", "n": 1.50 }';
    await ledger.complete(key, claim.token, { json });
    expect(await ledger.get(key)).toMatchObject({ state: 'completed', result: { json } });
    // Earlier versions stored the same field as JSON text: such a record reads as before.
    const admin = new Redis(url);
    const old = `old-${randomUUID()}`;
    await admin.hset(`${prefix}record:${old}`, {
      state: 'completed',
      payloadHash: 'h',
      token: '7',
      result: '{"refundId":"r_1"}',
      inDoubt: '0',
      updatedAt: String(Date.now()),
    });
    await admin.quit();
    expect(await ledger.claim({ key: old, payloadHash: 'h' })).toEqual({
      status: 'completed',
      result: { json: '{"refundId":"r_1"}' },
    });
  });

  it('gives a run’s facts and repairs a long Redis expiry of their own, renewed on write', async () => {
    const ledger = open({ retentionMs: 10_000 });
    const run = `ttl-${randomUUID()}`;
    await ledger.addRepair(run, 'fp');
    await ledger.addFact(run, 'denial', 'r', { resource: 'r', tool: 't', reason: 'x', at: 1 });
    const admin = new Redis(url);
    const week = 7 * 24 * 60 * 60 * 1000;
    for (const suffix of ['repairs', 'facts', 'factlog']) {
      const ttl = await admin.pttl(`${prefix}run:${run}:${suffix}`);
      expect(ttl, suffix).toBeGreaterThan(week - 60_000);
      expect(ttl, suffix).toBeLessThanOrEqual(week);
    }
    await admin.quit();
    const long = open({ retentionMs: 2 * week });
    await long.addRepair(run, 'fp');
    const check = new Redis(url);
    expect(await check.pttl(`${prefix}run:${run}:repairs`)).toBeGreaterThan(13 * week);
    await check.quit();
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
  it('gives up with LedgerUnavailableError instead of waiting for an answer forever', async () => {
    const server = createServer(() => {});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      const ledger = open({ url: `redis://127.0.0.1:${port}` });
      await expect(ledger.claim({ key: 'k', payloadHash: 'h' })).rejects.toMatchObject({
        name: 'LedgerUnavailableError',
        store: 'redis',
      });
      await ledger.close();
    } finally {
      server.close();
    }
  });
});

/** Polls real time until `check` passes: pub/sub delivers on its own schedule. */
async function eventually(check: () => boolean, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The CLIENT LIST lines of connections named `name` (the ledger's and its subscriber's). */
async function clientsNamed(name: string): Promise<string[]> {
  const admin = new Redis(url);
  const list = (await admin.client('LIST')) as string;
  await admin.quit();
  return list.split('\n').filter((line) => line.includes(`name=${name} `));
}

describe('RedisLedger fact watches', () => {
  const denial = { resource: 'r', tool: 't', reason: 'HTTP_403', at: 1 };

  it('after its connection is killed, subscribes again, calls onChange and delivers new facts', async () => {
    const name = `recourse-watch-${randomUUID()}`;
    const ledger = open({ url: `${url}?connectionName=${name}` });
    const writer = open();
    const run = `watch-${randomUUID()}`;
    let changes = 0;
    const watch = ledger.watchFacts(run, () => {
      changes += 1;
    });
    await eventually(() => watch.live);
    const connected = changes;
    const subscriber = (await clientsNamed(name)).find((line) => /\bsub=1\b/.test(line));
    const id = subscriber?.match(/^id=(\d+)/)?.[1];
    expect(id).toBeDefined();
    const admin = new Redis(url);
    expect(await admin.client('KILL', 'ID', id ?? '')).toBe(1);
    await admin.quit();
    // Facts may have been added while nobody listened: the resubscription says so.
    await eventually(() => changes > connected && watch.live);
    const before = changes;
    expect(await writer.addFact(run, 'denial', 'r', denial)).toBe(true);
    await eventually(() => changes > before);
    // An add that changes nothing announces nothing.
    const after = changes;
    expect(await writer.addFact(run, 'denial', 'r', denial)).toBe(false);
    // A SUBSCRIBE confirmed after that add proves delivery order: a message from it would
    // have reached the subscriber connection first.
    const other = ledger.watchFacts(`${run}-other`, () => {});
    await eventually(() => other.live);
    other.close();
    expect(changes).toBe(after);
    watch.close();
  });

  it('stops being live when its connection goes silent, and recovers when the network is back', async () => {
    const proxy = await startTcpProxy(Number(new URL(url).port || 6379));
    try {
      const ledger = open({ url: `redis://127.0.0.1:${proxy.port}`, watchHeartbeatMs: 100 });
      const writer = open();
      const run = `silent-${randomUUID()}`;
      let changes = 0;
      const watch = ledger.watchFacts(run, () => {
        changes += 1;
      });
      await eventually(() => watch.live);
      proxy.freeze();
      // No FIN, no RST: only the unanswered PING shows the connection is gone.
      await eventually(() => !watch.live);
      const before = changes;
      expect(await writer.addFact(run, 'denial', 'r', denial)).toBe(true);
      proxy.thaw();
      await eventually(() => watch.live && changes > before);
      expect((await ledger.listFacts(run)).denial).toEqual([denial]);
      watch.close();
    } finally {
      await proxy.close();
    }
  });

  it('opens one subscriber connection for all its watches, and closes it on close(), also beside a client you own', async () => {
    const name = `recourse-own-${randomUUID()}`;
    const client = new Redis(url, { connectionName: name });
    const ledger = new RedisLedger({ client, keyPrefix: prefix });
    const watches = ['a', 'b', 'c'].map((run) => ledger.watchFacts(`${name}-${run}`, () => {}));
    for (const watch of watches) await eventually(() => watch.live);
    const lines = await clientsNamed(name);
    // Your client and one subscriber, subscribed to the three runs' channels.
    expect(lines).toHaveLength(2);
    expect(lines.filter((line) => /\bsub=3\b/.test(line))).toHaveLength(1);
    await ledger.close();
    for (const watch of watches) expect(watch.live).toBe(false);
    let left = await clientsNamed(name);
    for (let i = 0; i < 100 && left.length > 1; i++) left = await clientsNamed(name);
    expect(left).toHaveLength(1);
    expect(await client.ping()).toBe('PONG');
    await client.quit();
  });

  it('unsubscribes a run when its last watch closes', async () => {
    const name = `recourse-unsub-${randomUUID()}`;
    const ledger = open({ url: `${url}?connectionName=${name}` });
    const first = ledger.watchFacts(`${name}-a`, () => {});
    const second = ledger.watchFacts(`${name}-a`, () => {});
    const third = ledger.watchFacts(`${name}-b`, () => {});
    for (const watch of [first, second, third]) await eventually(() => watch.live);
    first.close();
    second.close();
    expect(first.live).toBe(false);
    expect(third.live).toBe(true);
    let subscriber = (await clientsNamed(name)).find((line) => /\bsub=\d+\b/.test(line));
    for (let i = 0; i < 100 && !/\bsub=1\b/.test(subscriber ?? ''); i++) {
      subscriber = (await clientsNamed(name)).find((line) => /\bsub=\d+\b/.test(line));
    }
    expect(subscriber).toMatch(/\bsub=1\b/);
    third.close();
  });
});
