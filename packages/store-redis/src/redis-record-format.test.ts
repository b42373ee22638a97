import { randomUUID } from 'node:crypto';
import { LeaseLostError } from '@recourse/core/store';
import { createFakeClock } from '@recourse/core/testing';
import { type Command, Redis, ReplyError } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { RedisLedger } from './redis-ledger.js';

const url = process.env.RECOURSE_REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `recourse-format:${randomUUID()}:`;
const admin = new Redis(url);
const clients: Redis[] = [admin];

afterAll(async () => {
  const keys = await admin.keys(`${prefix}*`);
  if (keys.length > 0) await admin.del(...keys);
  for (const client of clients) await client.quit();
});

/** A client that keeps the name and arguments of every command it sends. */
class RecordingRedis extends Redis {
  readonly sent: string[][] = [];

  override sendCommand(command: Command, stream?: Parameters<Redis['sendCommand']>[1]): unknown {
    this.sent.push([command.name, ...command.args.map(String)]);
    return super.sendCommand(command, stream);
  }
}

/**
 * Answers `SET … NX … GET` as Redis 6.2 does (NX and GET together are a syntax error there,
 * and nothing is written); every other command goes to the real server.
 */
class Redis62 extends RecordingRedis {
  override sendCommand(command: Command, stream?: Parameters<Redis['sendCommand']>[1]): unknown {
    const options = command.args.map((arg) => String(arg).toUpperCase());
    if (command.name === 'set' && options.includes('NX') && options.includes('GET')) {
      this.sent.push([command.name, ...command.args.map(String)]);
      command.reject(new ReplyError('ERR syntax error'));
      return command.promise;
    }
    return super.sendCommand(command, stream);
  }
}

function ledgerOn(
  client: Redis,
  options: Partial<ConstructorParameters<typeof RedisLedger>[0]> = {},
): RedisLedger {
  clients.push(client);
  return new RedisLedger({ client, keyPrefix: prefix, ...options } as ConstructorParameters<
    typeof RedisLedger
  >[0]);
}

const recordKey = (key: string) => `${prefix}record:${key}`;
const names = (client: RecordingRedis) => client.sent.map(([name]) => name);
const isScript = (name: string | undefined) => name === 'evalsha' || name === 'eval';

describe('RedisLedger claims of a free key', () => {
  it('are one SET NX PX GET and no script; a held key goes on to the claim script', async () => {
    const client = new RecordingRedis(url);
    const ledger = ledgerOn(client, { clock: createFakeClock(1_000), leaseMs: 500 });
    await client.ping();
    client.sent.length = 0;
    const key = `fresh-${randomUUID()}`;
    const claimed = await ledger.claim({ key, payloadHash: 'h' });
    expect(claimed.status).toBe('acquired');
    expect(client.sent).toHaveLength(1);
    const [name, sentKey, , ...options] = client.sent[0] ?? [];
    expect([name, sentKey]).toEqual(['set', recordKey(key)]);
    expect(options.map((option) => option.toUpperCase())).toEqual(
      expect.arrayContaining(['NX', 'GET', 'PX']),
    );
    expect(await admin.type(recordKey(key))).toBe('string');
    client.sent.length = 0;
    expect(await ledger.claim({ key, payloadHash: 'h' })).toEqual({
      status: 'in_flight',
      leaseExpiresAt: 1_500,
    });
    expect(names(client)[0]).toBe('set');
    expect(isScript(names(client)[1])).toBe(true);
  });

  it('keep a millisecond time that needs more than 14 digits exact, through the scripts too', async () => {
    const clock = createFakeClock(1_764_636_000_000);
    const first = ledgerOn(new Redis(url), { clock, leaseMs: 123.25 });
    const second = ledgerOn(new Redis(url), { clock, leaseMs: 123.25 });
    const key = `digits-${randomUUID()}`;
    const claimed = await first.claim({ key, payloadHash: 'h' });
    expect(await first.get(key)).toMatchObject({ leaseExpiresAt: 1_764_636_000_123.25 });
    const stored = JSON.parse((await admin.get(recordKey(key))) ?? '{}');
    expect(stored).toMatchObject({
      leaseExpiresAt: '1764636000123.25',
      updatedAt: '1764636000000',
    });
    if (claimed.status !== 'acquired') throw new Error(claimed.status);
    await clock.advance(7);
    // renew and a takeover rewrite the record inside a script (cjson).
    expect(await first.renew(key, claimed.token)).toBe(true);
    expect(await second.get(key)).toMatchObject({ leaseExpiresAt: 1_764_636_000_130.25 });
    await clock.advance(200);
    expect(await second.claim({ key, payloadHash: 'h' })).toMatchObject({ previous: 'expired' });
    expect(await second.get(key)).toMatchObject({
      leaseExpiresAt: 1_764_636_000_330.25,
      updatedAt: 1_764_636_000_207,
    });
  });

  it.each([
    ['quotes, a backslash and non-ASCII text', '"\\\u00e9\u{1F600}\n'],
    ['a lone surrogate (sent as U+FFFD, as a script argument is)', 'h\uD800'],
  ])('read back a payload hash with %s as the claim script compares it', async (_, hash) => {
    const clock = createFakeClock(1_000);
    const ledger = ledgerOn(new Redis(url), { clock, leaseMs: 500 });
    const key = `hash-text-${randomUUID()}`;
    expect((await ledger.claim({ key, payloadHash: hash })).status).toBe('acquired');
    expect(await ledger.claim({ key, payloadHash: hash })).toEqual({
      status: 'in_flight',
      leaseExpiresAt: 1_500,
    });
    expect(await ledger.claim({ key, payloadHash: `${hash}x` })).toEqual({ status: 'conflict' });
    expect((await ledger.get(key))?.payloadHash).toBe(Buffer.from(hash).toString());
  });
});

describe('RedisLedger on a server that refuses SET with NX and GET (Redis before 7.0)', () => {
  it('claims through the script from then on, never taking the refusal as a claim', async () => {
    const clock = createFakeClock(1_000);
    const client = new Redis62(url);
    const ledger = ledgerOn(client, { clock, leaseMs: 500 });
    const other = ledgerOn(new Redis(url), { clock, leaseMs: 500 });
    const key = `old-server-${randomUUID()}`;
    const claimed = await ledger.claim({ key, payloadHash: 'h' });
    expect(claimed.status).toBe('acquired');
    expect(names(client).filter((name) => name === 'set')).toHaveLength(1);
    expect(names(client).filter(isScript).length).toBeGreaterThan(0);
    expect(await other.claim({ key, payloadHash: 'h' })).toEqual({
      status: 'in_flight',
      leaseExpiresAt: 1_500,
    });
    client.sent.length = 0;
    const next = `old-server-next-${randomUUID()}`;
    expect((await ledger.claim({ key: next, payloadHash: 'h' })).status).toBe('acquired');
    expect(await ledger.claim({ key: next, payloadHash: 'h' })).toMatchObject({
      status: 'in_flight',
    });
    expect(names(client)).not.toContain('set');
    if (claimed.status !== 'acquired') throw new Error(claimed.status);
    await ledger.complete(key, claimed.token, { json: '1' });
    expect(await other.claim({ key, payloadHash: 'h' })).toEqual({
      status: 'completed',
      result: { json: '1' },
    });
  });

  it('lets exactly one of several refused clients acquire a key claimed at once', async () => {
    const ledgers = Array.from({ length: 4 }, () => ledgerOn(new Redis62(url)));
    const key = `old-server-race-${randomUUID()}`;
    const results = await Promise.all(
      ledgers.map((ledger) => ledger.claim({ key, payloadHash: 'h' })),
    );
    expect(results.filter((result) => result.status === 'acquired')).toHaveLength(1);
    expect(results.filter((result) => result.status === 'in_flight')).toHaveLength(3);
  });
});

/** A record as the previous version of this library wrote it: a hash. */
async function writeHashRecord(key: string, fields: Record<string, string>): Promise<void> {
  await admin.hset(recordKey(key), fields);
  await admin.pexpire(recordKey(key), 60_000);
}

describe('RedisLedger on a record an earlier version wrote (a hash)', () => {
  const clock = createFakeClock(10_000);
  const ledger = ledgerOn(new Redis(url), { clock, leaseMs: 1_000, retentionMs: 60_000 });

  it('sees a live claim in flight, and get() reads it', async () => {
    const key = `hash-live-${randomUUID()}`;
    await writeHashRecord(key, {
      state: 'in_flight',
      payloadHash: 'h',
      token: 'older.1',
      leaseExpiresAt: '10500',
      updatedAt: '9500',
    });
    expect(await ledger.claim({ key, payloadHash: 'h' })).toEqual({
      status: 'in_flight',
      leaseExpiresAt: 10_500,
    });
    expect(await ledger.claim({ key, payloadHash: 'other' })).toEqual({ status: 'conflict' });
    expect(await ledger.get(key)).toEqual({
      key,
      state: 'in_flight',
      payloadHash: 'h',
      leaseExpiresAt: 10_500,
      updatedAt: 9_500,
    });
    expect(await admin.type(recordKey(key))).toBe('hash');
  });

  it('answers a completed one with its result', async () => {
    const key = `hash-done-${randomUUID()}`;
    await writeHashRecord(key, {
      state: 'completed',
      payloadHash: 'h',
      token: 'older.2',
      unstorable: 'too large',
      inDoubt: '0',
      updatedAt: '9000',
    });
    expect(await ledger.claim({ key, payloadHash: 'h' })).toEqual({
      status: 'completed',
      result: { unstorable: 'too large' },
    });
    expect(await ledger.get(key)).toMatchObject({
      state: 'completed',
      result: { unstorable: 'too large' },
    });
  });

  it('takes over an expired claim, keeping its note, and stores the new record as a string', async () => {
    const key = `hash-expired-${randomUUID()}`;
    await writeHashRecord(key, {
      state: 'in_flight',
      payloadHash: 'h',
      token: 'older.3',
      leaseExpiresAt: '9999',
      note: 'sent the request',
      updatedAt: '9000',
    });
    const claimed = await ledger.claim({ key, payloadHash: 'h' });
    expect(claimed).toMatchObject({ status: 'acquired', previous: 'expired' });
    expect(await admin.type(recordKey(key))).toBe('string');
    expect(await ledger.get(key)).toMatchObject({
      state: 'in_flight',
      leaseExpiresAt: 11_000,
      note: 'sent the request',
    });
    if (claimed.status !== 'acquired') throw new Error(claimed.status);
    // The takeover is in doubt: a release puts the key back to uncertain, not free.
    expect(await ledger.release(key, claimed.token)).toBe(true);
    expect(await ledger.get(key)).toMatchObject({ state: 'uncertain', note: 'sent the request' });
    expect(await ledger.claim({ key, payloadHash: 'h' })).toMatchObject({ previous: 'uncertain' });
  });

  it('refuses every write of a token that does not hold it, and leaves it as it was', async () => {
    const key = `hash-fenced-${randomUUID()}`;
    const fields = {
      state: 'in_flight',
      payloadHash: 'h',
      token: 'older.4',
      leaseExpiresAt: '10500',
      updatedAt: '9500',
    };
    await writeHashRecord(key, fields);
    const stranger = 'not-the-holder';
    await expect(ledger.complete(key, stranger, { json: '1' })).rejects.toBeInstanceOf(
      LeaseLostError,
    );
    expect(await ledger.renew(key, stranger)).toBe(false);
    expect(await ledger.release(key, stranger)).toBe(false);
    expect(await ledger.markUncertain(key, stranger, 'note')).toBe(false);
    expect(await admin.hgetall(recordKey(key))).toEqual(fields);
  });
});
