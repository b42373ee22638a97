import { describe, expect, it } from 'vitest';
import type { LedgerContractHarness } from './ledger-contract.js';
import { expectAcquired, expectLeaseLost, stored } from './ledger-contract-expect.js';

const hash = 'sha256:payload-1';

export function describeLeaseContract(harness: () => LedgerContractHarness): void {
  describe('leases and fencing', () => {
    it('lets another claimer take over once the lease has expired, flagged as expired', async () => {
      const { ledger, clock, context } = harness();
      const first = expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash }));
      await clock.advance(context.leaseMs - 1);
      expect((await ledger.claim({ key: 'k', payloadHash: hash })).status).toBe('in_flight');
      await clock.advance(2);
      const second = expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash }), 'expired');
      expect(second).not.toBe(first);
      expect(await ledger.claim({ key: 'k', payloadHash: hash })).toEqual({
        status: 'in_flight',
        leaseExpiresAt: clock.now() + context.leaseMs,
      });
    });

    it('honours a per-claim leaseMs', async () => {
      const { ledger, clock, context } = harness();
      const leaseMs = context.leaseMs * 5;
      expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash, leaseMs }));
      await clock.advance(context.leaseMs * 2);
      expect(await ledger.claim({ key: 'k', payloadHash: hash })).toEqual({
        status: 'in_flight',
        leaseExpiresAt: clock.now() - context.leaseMs * 2 + leaseMs,
      });
      await clock.advance(leaseMs);
      expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash }), 'expired');
    });

    it('fences the old claimer out after a takeover', async () => {
      const { ledger, clock, context } = harness();
      const old = expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash }));
      await clock.advance(context.leaseMs + 1);
      const current = expectAcquired(
        await ledger.claim({ key: 'k', payloadHash: hash }),
        'expired',
      );
      const before = await ledger.get('k');

      await expectLeaseLost(ledger.complete('k', old, stored('stale write')));
      expect(await ledger.release('k', old)).toBe(false);
      expect(await ledger.markUncertain('k', old, 'stale')).toBe(false);
      expect(await ledger.get('k')).toEqual(before);

      await ledger.complete('k', current, stored('fresh write'));
      await expectLeaseLost(ledger.complete('k', old, stored('stale write')));
      expect(await ledger.claim({ key: 'k', payloadHash: hash })).toEqual({
        status: 'completed',
        result: stored('fresh write'),
      });
    });

    it('keeps a taken-over key in doubt when the new claimer releases it', async () => {
      const { ledger, clock, context } = harness();
      expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash }));
      await clock.advance(context.leaseMs + 1);
      const second = expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash }), 'expired');
      expect(await ledger.release('k', second)).toBe(true);
      expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash }), 'uncertain');
    });

    it('lets a claimer whose lease ran out complete while nobody has taken over', async () => {
      const { ledger, clock, context } = harness();
      const token = expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash }));
      await clock.advance(context.leaseMs * 3);
      await ledger.complete('k', token, stored('late but unique'));
      expect(await ledger.claim({ key: 'k', payloadHash: hash })).toEqual({
        status: 'completed',
        result: stored('late but unique'),
      });
    });

    it('rejects tokens it never issued', async () => {
      const { ledger } = harness();
      await expectLeaseLost(ledger.complete('never-claimed', 'forged', stored(1)));
      expect(await ledger.release('never-claimed', 'forged')).toBe(false);
      expect(await ledger.markUncertain('never-claimed', 'forged')).toBe(false);
      expect(await ledger.get('never-claimed')).toBeUndefined();
      const token = expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash }));
      await expectLeaseLost(ledger.complete('k', `${token}x`, stored(1)));
      expect(await ledger.release('k', 'forged')).toBe(false);
      expect((await ledger.get('k'))?.state).toBe('in_flight');
    });
  });

  describe('retention', () => {
    it('forgets a completed record after retentionMs', async () => {
      const { ledger, clock, context } = harness();
      const token = expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash }));
      await ledger.complete('k', token, stored('old'));
      await clock.advance(context.retentionMs - 1);
      expect((await ledger.get('k'))?.state).toBe('completed');
      await clock.advance(2);
      expect(await ledger.get('k')).toBeUndefined();
      // Past retention the key is free, even for a different payload.
      expectAcquired(await ledger.claim({ key: 'k', payloadHash: 'sha256:other' }));
    });

    it('forgets an uncertain record after retentionMs', async () => {
      const { ledger, clock, context } = harness();
      const token = expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash }));
      await ledger.markUncertain('k', token);
      await clock.advance(context.retentionMs + 1);
      expect(await ledger.get('k')).toBeUndefined();
      expectAcquired(await ledger.claim({ key: 'k', payloadHash: hash }));
    });
  });
}
