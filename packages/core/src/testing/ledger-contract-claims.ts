import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../types.js';
import type { LedgerContractHarness } from './ledger-contract.js';
import { expectAcquired, stored } from './ledger-contract-expect.js';
import { describeLeaseContract } from './ledger-contract-leases.js';

const results: [string, JsonValue][] = [
  ['null', null],
  ['a string', 'refunded'],
  ['an empty string', ''],
  ['a number', 42.5],
  ['zero', 0],
  ['a boolean', false],
  ['an empty object', {}],
  ['an empty array', []],
  [
    'nested JSON',
    {
      id: 'r_1',
      amount: 1999,
      tags: ['a', 'b'],
      meta: { ok: true, n: null, deep: [[1], { x: -3 }] },
    },
  ],
  [
    'unicode',
    { text: 'Árvíztűrő tükörfúrógép 日本語 🚀 "quoted" \\ back\nslash', emoji: '👩‍👩‍👧' },
  ],
  ['an array of objects', [{ a: 1 }, { b: [2, 3] }, 'c', null]],
];

const hash = 'sha256:payload-1';

export function describeClaimContract(harness: () => LedgerContractHarness): void {
  describe('claims', () => {
    it('acquires a free key, and reports a live claim as in flight until its lease ends', async () => {
      const { ledger, context } = harness();
      expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash }));
      expect(await ledger.claim({ key: 'k', payloadHash: hash })).toEqual({
        status: 'in_flight',
        leaseExpiresAt: context.clock.now() + context.leaseMs,
      });
    });

    it.each(results)('hands the stored result to later claims: %s', async (_label, value) => {
      const { ledger } = harness();
      const token = expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash }));
      await ledger.complete('k', token, stored(value));
      expect(await ledger.claim({ key: 'k', payloadHash: hash })).toEqual({
        status: 'completed',
        result: stored(value),
      });
      expect(await ledger.claim({ key: 'k', payloadHash: hash })).toEqual({
        status: 'completed',
        result: stored(value),
      });
    });

    it('keeps the result text byte for byte, and hands out copies nobody can change', async () => {
      const { ledger } = harness();
      const token = expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash }));
      const text = '{"b":1,"a":[1,2],"s":"\\u00e9\\n"}';
      await ledger.complete('k', token, { json: text });
      const first = await ledger.claim({ key: 'k', payloadHash: hash });
      if (first.status === 'completed') first.result.json = 'changed';
      const record = await ledger.get('k');
      if (record?.result) record.result.json = 'changed too';
      expect(await ledger.claim({ key: 'k', payloadHash: hash })).toEqual({
        status: 'completed',
        result: { json: text },
      });
    });

    it('completes a write whose tool returned nothing: no result text', async () => {
      const { ledger } = harness();
      const token = expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash }));
      await ledger.complete('k', token, {});
      expect(await ledger.claim({ key: 'k', payloadHash: hash })).toEqual({
        status: 'completed',
        result: {},
      });
      expect(await ledger.get('k')).toMatchObject({ state: 'completed', result: {} });
    });

    it('completes a write without a stored result, and says why to every later claim', async () => {
      const { ledger } = harness();
      const token = expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash }));
      await ledger.complete('k', token, { unstorable: 'BigInt at $.amount' });
      const expected = { status: 'completed', result: { unstorable: 'BigInt at $.amount' } };
      expect(await ledger.claim({ key: 'k', payloadHash: hash })).toEqual(expected);
      expect(await ledger.claim({ key: 'k', payloadHash: hash })).toEqual(expected);
      expect(await ledger.get('k')).toMatchObject({
        state: 'completed',
        result: { unstorable: 'BigInt at $.amount' },
      });
      expect(await ledger.release('k', token)).toBe(false);
    });

    it('reports a different payload under a used key as a conflict, in every state', async () => {
      const { ledger } = harness();
      const inFlight = expectAcquired(await ledger.claim({ key: 'flying', payloadHash: hash }));
      const done = expectAcquired(await ledger.claim({ key: 'done', payloadHash: hash }));
      await ledger.complete('done', done, stored('ok'));
      const doubt = expectAcquired(await ledger.claim({ key: 'doubt', payloadHash: hash }));
      await ledger.markUncertain('doubt', doubt);
      for (const key of ['flying', 'done', 'doubt']) {
        expect(await ledger.claim({ key, payloadHash: 'sha256:other' })).toEqual({
          status: 'conflict',
        });
      }
      // The conflict changed nothing: the original claimer still owns its key.
      await ledger.complete('flying', inFlight, stored('first'));
      expect(await ledger.claim({ key: 'flying', payloadHash: hash })).toEqual({
        status: 'completed',
        result: stored('first'),
      });
    });

    it('frees a released key: the next claim acquires it with a new token', async () => {
      const { ledger } = harness();
      const first = expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash }));
      expect(await ledger.release('k', first)).toBe(true);
      expect(await ledger.get('k')).toBeUndefined();
      const second = expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash }));
      expect(second).not.toBe(first);
    });

    it('keeps an uncertain key in doubt for every later claimer until one completes it', async () => {
      const { ledger } = harness();
      const first = expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash }));
      expect(await ledger.markUncertain('k', first, 'timeout after send')).toBe(true);
      expect(await ledger.get('k')).toMatchObject({
        state: 'uncertain',
        note: 'timeout after send',
      });
      const second = expectAcquired(
        await ledger.claim({ key: 'k', payloadHash: hash }),
        'uncertain',
      );
      // Releasing a claim that changed nothing does not clear the earlier doubt.
      expect(await ledger.release('k', second)).toBe(true);
      expect(await ledger.get('k')).toMatchObject({ state: 'uncertain' });
      const third = expectAcquired(
        await ledger.claim({ key: 'k', payloadHash: hash }),
        'uncertain',
      );
      await ledger.complete('k', third, stored({ reconciled: true }));
      expect(await ledger.claim({ key: 'k', payloadHash: hash })).toEqual({
        status: 'completed',
        result: stored({ reconciled: true }),
      });
    });

    it('lets the claimer that marked a key uncertain complete it after reconciling', async () => {
      const { ledger } = harness();
      const token = expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash }));
      expect(await ledger.markUncertain('k', token)).toBe(true);
      await ledger.complete('k', token, stored('found downstream'));
      expect(await ledger.get('k')).toMatchObject({
        state: 'completed',
        result: stored('found downstream'),
      });
    });

    it('does not release or unsettle a completed key', async () => {
      const { ledger } = harness();
      const token = expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash }));
      await ledger.complete('k', token, stored(1));
      expect(await ledger.release('k', token)).toBe(false);
      expect(await ledger.markUncertain('k', token)).toBe(false);
      expect(await ledger.claim({ key: 'k', payloadHash: hash })).toEqual({
        status: 'completed',
        result: stored(1),
      });
    });

    it('returns the state of a record from get', async () => {
      const { ledger, clock, context } = harness();
      expect(await ledger.get('k')).toBeUndefined();
      const start = clock.now();
      const token = expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash }));
      expect(await ledger.get('k')).toMatchObject({
        key: 'k',
        state: 'in_flight',
        payloadHash: hash,
        leaseExpiresAt: start + context.leaseMs,
        updatedAt: start,
      });
      await clock.advance(10);
      await ledger.complete('k', token, stored({ ok: true }));
      expect(await ledger.get('k')).toMatchObject({
        key: 'k',
        state: 'completed',
        payloadHash: hash,
        result: stored({ ok: true }),
        updatedAt: start + 10,
      });
    });

    it('treats long keys, unicode, colons and slashes as plain, distinct keys', async () => {
      const { ledger } = harness();
      const base = 'run-1:refund_payment/v2:ügyfél:日本:🚀:';
      const long = base + 'x'.repeat(255 - base.length);
      expect(long).toHaveLength(255);
      const keys = [long, `${long.slice(0, 254)}y`, 'a:b', 'a:b/', 'A:B', 'a/b', 'a%3Ab', ' a:b'];
      const tokens = [];
      for (const key of keys) {
        tokens.push(expectAcquired(await ledger.claim({ key, payloadHash: hash })));
      }
      for (const [index, key] of keys.entries()) {
        await ledger.complete(key, tokens[index]!, stored({ key }));
      }
      for (const key of keys) {
        expect(await ledger.claim({ key, payloadHash: hash })).toEqual({
          status: 'completed',
          result: stored({ key }),
        });
        expect((await ledger.get(key))?.key).toBe(key);
      }
    });
  });

  describeLeaseContract(harness);
}
