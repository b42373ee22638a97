import { describe, expect, it, type TestContext } from 'vitest';
import { InvalidOptionsError } from '../errors.js';
import type { Ledger } from '../ledger/ledger.js';
import type { LedgerContractHarness } from './ledger-contract.js';
import { expectAcquired, expectLeaseLost, stored } from './ledger-contract-expect.js';

const hash = 'sha256:payload-1';

type Renew = NonNullable<Ledger['renew']>;

/**
 * `renew` is optional, so a store without it skips these tests. The store is only known
 * inside a test (the factory may connect), hence the skip from the test context.
 */
function renewOf(ledger: Ledger, context: TestContext): Renew {
  const renew = ledger.renew;
  if (!renew) context.skip('this ledger has no renew');
  return (key, token, leaseMs) => renew!.call(ledger, key, token, leaseMs);
}

export function describeRenewalContract(harness: () => LedgerContractHarness): void {
  describe('lease renewal (heartbeats)', () => {
    it('exposes its default lease as leaseMs', (ctx) => {
      const { ledger, context } = harness();
      renewOf(ledger, ctx);
      expect(ledger.leaseMs).toBe(context.leaseMs);
    });

    it('extends the lease: no takeover past the original lease, only past the renewed one', async (ctx) => {
      const { ledger, clock, context } = harness();
      const renew = renewOf(ledger, ctx);
      const token = expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash }));
      await clock.advance(context.leaseMs - 10);
      expect(await renew('k', token)).toBe(true);
      const renewedUntil = clock.now() + context.leaseMs;
      expect((await ledger.get('k'))?.leaseExpiresAt).toBe(renewedUntil);

      await clock.advance(20); // past the original lease
      expect(await ledger.claim({ key: 'k', payloadHash: hash })).toEqual({
        status: 'in_flight',
        leaseExpiresAt: renewedUntil,
      });
      await clock.advance(renewedUntil - clock.now() - 1);
      expect((await ledger.claim({ key: 'k', payloadHash: hash })).status).toBe('in_flight');
      await clock.advance(1);
      expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash }), 'expired');
    });

    it('keeps a claim alive across many renewals and lets the same token complete', async (ctx) => {
      const { ledger, clock, context } = harness();
      const renew = renewOf(ledger, ctx);
      const [, other = ledger] = await harness().handles();
      const token = expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash }));
      for (let beat = 0; beat < 6; beat++) {
        await clock.advance(Math.floor(context.leaseMs / 2));
        expect(await renew('k', token)).toBe(true);
        expect((await other.claim({ key: 'k', payloadHash: hash })).status).toBe('in_flight');
      }
      await ledger.complete('k', token, stored('done once'));
      expect(await other.claim({ key: 'k', payloadHash: hash })).toEqual({
        status: 'completed',
        result: stored('done once'),
      });
    });

    it('honours a per-call leaseMs', async (ctx) => {
      const { ledger, clock, context } = harness();
      const renew = renewOf(ledger, ctx);
      const token = expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash }));
      expect(await renew('k', token, context.leaseMs * 5)).toBe(true);
      await clock.advance(context.leaseMs * 5 - 1);
      expect((await ledger.claim({ key: 'k', payloadHash: hash })).status).toBe('in_flight');
      await clock.advance(1);
      expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash }), 'expired');
    });

    it('rejects a leaseMs that is not a positive number', async (ctx) => {
      const { ledger } = harness();
      const renew = renewOf(ledger, ctx);
      const token = expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash }));
      for (const leaseMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
        await expect(renew('k', token, leaseMs)).rejects.toBeInstanceOf(InvalidOptionsError);
      }
    });

    it('renews a lease that ran out while nobody took the key over', async (ctx) => {
      const { ledger, clock, context } = harness();
      const renew = renewOf(ledger, ctx);
      const token = expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash }));
      await clock.advance(context.leaseMs * 2);
      expect(await renew('k', token)).toBe(true);
      expect((await ledger.claim({ key: 'k', payloadHash: hash })).status).toBe('in_flight');
    });

    it('refuses a stale token after a takeover and changes nothing', async (ctx) => {
      const { ledger, clock, context } = harness();
      const renew = renewOf(ledger, ctx);
      const old = expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash }));
      await clock.advance(context.leaseMs + 1);
      const current = expectAcquired(
        await ledger.claim({ key: 'k', payloadHash: hash }),
        'expired',
      );
      const before = await ledger.get('k');
      await clock.advance(10);
      expect(await renew('k', old)).toBe(false);
      expect(await renew('k', `${current}x`)).toBe(false);
      expect(await ledger.get('k')).toEqual(before);
      await expectLeaseLost(ledger.complete('k', old, stored('stale write')));
    });

    it('refuses keys it never issued a claim for', async (ctx) => {
      const { ledger } = harness();
      const renew = renewOf(ledger, ctx);
      expect(await renew('never-claimed', 'forged')).toBe(false);
      expect(await ledger.get('never-claimed')).toBeUndefined();
    });

    it('refuses a completed record and changes nothing', async (ctx) => {
      const { ledger, clock } = harness();
      const renew = renewOf(ledger, ctx);
      const token = expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash }));
      await ledger.complete('k', token, stored('result'));
      const before = await ledger.get('k');
      await clock.advance(10);
      expect(await renew('k', token)).toBe(false);
      expect(await ledger.get('k')).toEqual(before);
      expect(await ledger.claim({ key: 'k', payloadHash: hash })).toEqual({
        status: 'completed',
        result: stored('result'),
      });
    });

    it('refuses an uncertain record and leaves it in doubt', async (ctx) => {
      const { ledger, clock } = harness();
      const renew = renewOf(ledger, ctx);
      const token = expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash }));
      expect(await ledger.markUncertain('k', token, 'timeout after send')).toBe(true);
      const before = await ledger.get('k');
      await clock.advance(10);
      expect(await renew('k', token)).toBe(false);
      expect(await ledger.get('k')).toEqual(before);
      expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash }), 'uncertain');
    });

    it('refuses a released claim: the key stays free', async (ctx) => {
      const { ledger } = harness();
      const renew = renewOf(ledger, ctx);
      const token = expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash }));
      expect(await ledger.release('k', token)).toBe(true);
      expect(await renew('k', token)).toBe(false);
      expect(await ledger.get('k')).toBeUndefined();
      expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash }));
    });
  });
}
