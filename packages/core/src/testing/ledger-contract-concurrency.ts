import { describe, expect, it } from 'vitest';
import type { ClaimResult, Ledger } from '../ledger/ledger.js';
import type { LedgerContractHarness } from './ledger-contract.js';
import { expectAcquired, stored } from './ledger-contract-expect.js';

const hash = 'sha256:payload-1';

/** Claims `key` from `count` async tasks spread over the handles, interleaved by microtasks. */
async function claimConcurrently(
  handles: Ledger[],
  key: string,
  count: number,
): Promise<ClaimResult[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      for (let yields = 0; yields < i % 7; yields++) await Promise.resolve();
      return handles[i % handles.length]!.claim({ key, payloadHash: hash });
    }),
  );
}

const countStatus = (results: ClaimResult[], status: ClaimResult['status']) =>
  results.filter((r) => r.status === status).length;

export function describeConcurrencyContract(
  harness: () => LedgerContractHarness,
  options: { concurrency: number },
): void {
  const { concurrency } = options;

  describe('concurrency', () => {
    it(`gives exactly one of ${concurrency} concurrent claims the key`, async () => {
      const handles = await harness().handles();
      const results = await claimConcurrently(handles, 'race', concurrency);
      expect(countStatus(results, 'acquired')).toBe(1);
      expect(countStatus(results, 'in_flight')).toBe(concurrency - 1);

      const winner = results.find((r) => r.status === 'acquired');
      if (winner?.status !== 'acquired') throw new Error('unreachable');
      await harness().ledger.complete('race', winner.token, stored({ charged: 1 }));
      const after = await claimConcurrently(handles, 'race', concurrency);
      expect(after).toEqual(
        Array.from({ length: concurrency }, () => ({
          status: 'completed',
          result: stored({ charged: 1 }),
        })),
      );
    });

    it('gives exactly one concurrent claimer an expired lease', async () => {
      const { ledger, clock, context } = harness();
      expectAcquired(await ledger.claim({ key: 'race', payloadHash: hash }));
      await clock.advance(context.leaseMs + 1);
      const results = await claimConcurrently(await harness().handles(), 'race', concurrency);
      const acquired = results.filter((r) => r.status === 'acquired');
      expect(acquired).toHaveLength(1);
      expect(acquired[0]).toMatchObject({ previous: 'expired' });
      expect(countStatus(results, 'in_flight')).toBe(concurrency - 1);
    });

    it('gives exactly one concurrent claimer an uncertain key', async () => {
      const { ledger } = harness();
      const token = expectAcquired(await ledger.claim({ key: 'race', payloadHash: hash }));
      await ledger.markUncertain('race', token);
      const results = await claimConcurrently(await harness().handles(), 'race', concurrency);
      expect(countStatus(results, 'acquired')).toBe(1);
      expect(countStatus(results, 'in_flight')).toBe(concurrency - 1);
    });

    it('acquires each of many keys exactly once when claimed concurrently', async () => {
      const handles = await harness().handles();
      const keys = Array.from({ length: 20 }, (_, i) => `op:${i}`);
      const perKey = await Promise.all(keys.map((key) => claimConcurrently(handles, key, 10)));
      for (const results of perKey) expect(countStatus(results, 'acquired')).toBe(1);
    });
  });
}
