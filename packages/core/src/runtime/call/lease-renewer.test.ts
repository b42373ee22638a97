import { describe, expect, it } from 'vitest';
import { createHarness, drive } from '../../../test-support/runtime-harness.js';
import type { Ledger } from '../../ledger/ledger.js';
import { MemoryLedger } from '../../ledger/memory-ledger.js';
import { createFakeClock } from '../../testing/fake-clock.js';
import { callContext } from '../call-context.js';
import { createLeaseRenewer, leaseRenewalIntervalMs, leaseRenewerFor } from './lease-renewer.js';

const hash = 'sha256:payload';

async function claimed(ledger: Ledger, key = 'k'): Promise<string> {
  const claim = await ledger.claim({ key, payloadHash: hash });
  if (claim.status !== 'acquired') throw new Error(`unexpected ${claim.status}`);
  return claim.token;
}

/** A third-party store without `renew`: every other method of the memory ledger. */
function withoutRenew(inner: MemoryLedger): Ledger {
  return {
    name: 'legacy',
    claim: (request) => inner.claim(request),
    complete: (key, token, result) => inner.complete(key, token, result),
    release: (key, token) => inner.release(key, token),
    markUncertain: (key, token, note) => inner.markUncertain(key, token, note),
    get: (key) => inner.get(key),
    addRepair: (runId, fingerprint) => inner.addRepair(runId, fingerprint),
    getRepairs: (runId, fingerprint) => inner.getRepairs(runId, fingerprint),
    addFact: (runId, kind, id, fact) => inner.addFact(runId, kind, id, fact),
    listFacts: (runId) => inner.listFacts(runId),
    close: () => inner.close(),
  };
}

describe('the lease renewer', () => {
  it('renews every third of the lease, so a held claim outlives many leases', async () => {
    const clock = createFakeClock(10_000);
    const ledger = new MemoryLedger({ clock, leaseMs: 900 });
    const renewer = createLeaseRenewer(ledger, clock);
    const token = await claimed(ledger);
    const lease = renewer.hold('k', token);
    await clock.advance(5_000); // more than five leases
    expect((await ledger.claim({ key: 'k', payloadHash: hash })).status).toBe('in_flight');
    // The last tick was at 10 000 + 16 × 300 = 14 800.
    expect((await ledger.get('k'))?.leaseExpiresAt).toBe(14_800 + 900);
    expect(clock.sleeps.every((ms) => ms === 300)).toBe(true);
    expect(lease.lost).toBe(false);
    lease.release();
    await ledger.complete('k', token, { json: '"done"' });
    expect((await ledger.get('k'))?.state).toBe('completed');
  });

  it('renews any number of claims with one ticker, and stops once nothing is held', async () => {
    const clock = createFakeClock(0);
    const ledger = new MemoryLedger({ clock, leaseMs: 900 });
    const renewer = createLeaseRenewer(ledger, clock);
    const leases = [];
    for (let i = 0; i < 50; i++) leases.push(renewer.hold(`k${i}`, await claimed(ledger, `k${i}`)));
    expect(clock.pending()).toBe(1);
    await clock.advance(3_000);
    // Ten ticks for fifty claims, not five hundred timers.
    expect(clock.sleeps.length).toBeLessThanOrEqual(11);
    for (const lease of leases) lease.release();
    await clock.advance(300);
    expect(clock.pending()).toBe(0);
    expect(renewer.held).toBe(0);
    // The next claim starts it again.
    const again = renewer.hold('k0', 'token');
    expect(clock.pending()).toBe(1);
    again.release();
  });

  it('marks only the lease that was taken over as lost, and stops renewing it', async () => {
    const clock = createFakeClock(0);
    const ledger = new MemoryLedger({ clock, leaseMs: 900 });
    const renewer = createLeaseRenewer(ledger, clock);
    const kept = renewer.hold('a', await claimed(ledger, 'a'));
    const taken = renewer.hold('b', 'a token another worker replaced');
    await claimed(ledger, 'b');
    await clock.advance(300);
    expect(taken.lost).toBe(true);
    expect(kept.lost).toBe(false);
    expect(renewer.held).toBe(1);
    kept.release();
  });

  it('marks a lease lost when the store fails to renew', async () => {
    const clock = createFakeClock(0);
    const inner = new MemoryLedger({ clock, leaseMs: 900 });
    const failing: Ledger = Object.assign(withoutRenew(inner), {
      leaseMs: 900,
      renew: async () => {
        throw new Error('store down');
      },
    });
    const lease = createLeaseRenewer(failing, clock).hold('k', await claimed(inner));
    await clock.advance(300);
    expect(lease.lost).toBe(true);
  });

  it('marks a lease lost when the store does not answer a renewal by the next tick', async () => {
    const clock = createFakeClock(0);
    const inner = new MemoryLedger({ clock, leaseMs: 900 });
    const hung: Ledger = Object.assign(withoutRenew(inner), {
      leaseMs: 900,
      renew: () => new Promise<boolean>(() => {}),
    });
    const renewer = createLeaseRenewer(hung, clock);
    const lease = renewer.hold('k', await claimed(inner));
    await clock.advance(300); // the first renewal is sent, and never answers
    expect(lease.lost).toBe(false);
    await clock.advance(300); // one interval later: a takeover can no longer be ruled out
    expect(lease.lost).toBe(true);
    expect(renewer.held).toBe(0);
  });

  it('does nothing for a ledger without renew', async () => {
    const clock = createFakeClock(0);
    const ledger = withoutRenew(new MemoryLedger({ clock }));
    const lease = createLeaseRenewer(ledger, clock).hold('k', await claimed(ledger));
    expect(clock.pending()).toBe(0);
    expect(lease.lost).toBe(false);
  });

  it('is shared per ledger and clock', () => {
    const clock = createFakeClock(0);
    const ledger = new MemoryLedger({ clock });
    expect(leaseRenewerFor(ledger, clock)).toBe(leaseRenewerFor(ledger, clock));
    expect(leaseRenewerFor(ledger, createFakeClock(0))).not.toBe(leaseRenewerFor(ledger, clock));
  });

  it('is a third of the ledger lease, or of the 30 s default when the store has none', () => {
    expect(leaseRenewalIntervalMs(new MemoryLedger({ leaseMs: 1_000 }))).toBe(333);
    expect(leaseRenewalIntervalMs(new MemoryLedger({ leaseMs: 2 }))).toBe(1);
    expect(leaseRenewalIntervalMs(withoutRenew(new MemoryLedger({ leaseMs: 900 })))).toBe(10_000);
  });
});

describe('a write slower than its lease, on two workers sharing a ledger', () => {
  const leaseMs = 1_000;

  async function runTwoWorkers() {
    const clock = createFakeClock(1_000_000);
    const ledger = new MemoryLedger({ clock, leaseMs });
    const delivered: string[] = [];
    let executions = 0;
    const policies = {
      send_invoice: {
        sideEffects: true,
        // The downstream only shows the invoice once the slow send has finished.
        reconcile: () => ({ happened: delivered.length > 0, result: 'sent' }),
      },
    };
    const execute = async () => {
      executions++;
      await clock.sleep(leaseMs * 3);
      delivered.push(callContext().idempotencyKey);
      return 'sent';
    };
    const first = createHarness({ policies, inFlightWaitMs: leaseMs * 10 }, { ledger, clock });
    const second = createHarness({ policies, inFlightWaitMs: leaseMs * 10 }, { ledger, clock });
    const input = { invoiceId: 'inv-7' };
    const results = await drive(
      clock,
      Promise.all([
        first.runtime.execute({
          toolName: 'send_invoice',
          toolCallId: 'a',
          input,
          execute: () => execute(),
        }),
        second.runtime.execute({
          toolName: 'send_invoice',
          toolCallId: 'b',
          input,
          execute: () => execute(),
        }),
      ]),
    );
    return { results, executions, delivered, ledger, clock };
  }

  it('is not taken over while it runs: executed once, the other worker gets the stored result', async () => {
    const { results, executions, delivered, clock } = await runTwoWorkers();
    expect(executions).toBe(1);
    expect(delivered).toHaveLength(1);
    expect(results.map((r) => r.ok)).toEqual([true, true]);
    expect(results.filter((r) => r.ok && r.deduplicated)).toHaveLength(1);
    expect(results.find((r) => r.ok && r.deduplicated)).toMatchObject({ value: 'sent' });
    // The shared ticker stops after one tick with nothing left to renew.
    await clock.advance(leaseMs);
    expect(clock.pending()).toBe(0);
  });

  it('renewed the lease at a third of leaseMs while the write ran', async () => {
    const { clock } = await runTwoWorkers();
    expect(
      clock.sleeps.filter((ms) => ms === Math.floor(leaseMs / 3)).length,
    ).toBeGreaterThanOrEqual(8);
  });
});
