import { describe, expect, it } from 'vitest';
import type { Ledger } from '../ledger/ledger.js';
import { MemoryLedger } from '../ledger/memory-ledger.js';
import { SqliteLedger } from '../sqlite/sqlite-ledger.js';
import { createFakeClock } from '../testing/fake-clock.js';
import { callContext } from './call-context.js';
import { leaseRenewalIntervalMs, startLeaseHeartbeat } from './lease-heartbeat.js';
import { createHarness, drive } from './runtime.test-harness.js';

const hash = 'sha256:payload';

async function claimed(ledger: Ledger, key = 'k'): Promise<string> {
  const claim = await ledger.claim({ key, payloadHash: hash });
  if (claim.status !== 'acquired') throw new Error(`unexpected ${claim.status}`);
  return claim.token;
}

/** A third-party store written before `renew` existed: every method but that one. */
function withoutRenew(inner: MemoryLedger): Ledger {
  return {
    name: 'legacy',
    claim: (request) => inner.claim(request),
    complete: (key, token, result) => inner.complete(key, token, result),
    release: (key, token) => inner.release(key, token),
    markUncertain: (key, token, note) => inner.markUncertain(key, token, note),
    get: (key) => inner.get(key),
    incrementCounter: (runId, name, by) => inner.incrementCounter(runId, name, by),
    getCounter: (runId, name) => inner.getCounter(runId, name),
    addDenial: (runId, denial) => inner.addDenial(runId, denial),
    listDenials: (runId) => inner.listDenials(runId),
  };
}

describe('startLeaseHeartbeat', () => {
  it('renews every third of the lease, so the claim outlives many leases', async () => {
    const clock = createFakeClock(10_000);
    const ledger = new MemoryLedger({ clock, leaseMs: 900 });
    const token = await claimed(ledger);
    const heartbeat = startLeaseHeartbeat({ ledger, key: 'k', token, clock });

    await clock.advance(5_000); // more than five leases
    expect((await ledger.claim({ key: 'k', payloadHash: hash })).status).toBe('in_flight');
    // The last beat was at 10 000 + 16 × 300 = 14 800.
    expect((await ledger.get('k'))?.leaseExpiresAt).toBe(14_800 + 900);
    expect(clock.sleeps.every((ms) => ms === 300)).toBe(true);
    expect(heartbeat.lost).toBe(false);

    heartbeat.stop();
    await ledger.complete('k', token, 'done');
    expect((await ledger.get('k'))?.state).toBe('completed');
  });

  it('stops on stop(): no timer left, and the lease then runs out', async () => {
    const clock = createFakeClock(0);
    const ledger = new MemoryLedger({ clock, leaseMs: 900 });
    const token = await claimed(ledger);
    const heartbeat = startLeaseHeartbeat({ ledger, key: 'k', token, clock, intervalMs: 300 });
    await clock.advance(650);
    heartbeat.stop();
    heartbeat.stop();
    expect(clock.pending()).toBe(0);
    await clock.advance(900);
    const takeover = await ledger.claim({ key: 'k', payloadHash: hash });
    expect(takeover).toMatchObject({ status: 'acquired', previous: 'expired' });
    expect(heartbeat.lost).toBe(false);
  });

  it('marks the lease lost and stops when another worker took the key over', async () => {
    const clock = createFakeClock(0);
    const ledger = new MemoryLedger({ clock, leaseMs: 900 });
    const token = await claimed(ledger);
    // Beats too slow for the lease: the key is taken over between two of them.
    const heartbeat = startLeaseHeartbeat({ ledger, key: 'k', token, clock, intervalMs: 1_000 });
    await clock.advance(950);
    const takeover = await ledger.claim({ key: 'k', payloadHash: hash });
    expect(takeover).toMatchObject({ status: 'acquired', previous: 'expired' });
    await clock.advance(100);
    expect(heartbeat.lost).toBe(true);
    expect(clock.pending()).toBe(0);
    expect(clock.sleeps).toEqual([1_000]);
  });

  it('marks the lease lost when the record is no longer in flight', async () => {
    const clock = createFakeClock(0);
    const ledger = new MemoryLedger({ clock, leaseMs: 900 });
    const token = await claimed(ledger);
    const heartbeat = startLeaseHeartbeat({ ledger, key: 'k', token, clock, intervalMs: 300 });
    await ledger.markUncertain('k', token, 'someone marked it');
    await clock.advance(300);
    expect(heartbeat.lost).toBe(true);
    expect(clock.pending()).toBe(0);
  });

  it('marks the lease lost and stops when the store fails', async () => {
    const clock = createFakeClock(0);
    const ledger = new SqliteLedger({ path: ':memory:', clock, leaseMs: 900 });
    const token = await claimed(ledger);
    const heartbeat = startLeaseHeartbeat({ ledger, key: 'k', token, clock, intervalMs: 300 });
    await ledger.close(); // renew now throws LedgerUnavailableError
    await clock.advance(300);
    expect(heartbeat.lost).toBe(true);
    expect(clock.pending()).toBe(0);
  });

  it('does nothing for a ledger without renew', async () => {
    const clock = createFakeClock(0);
    const ledger = withoutRenew(new MemoryLedger({ clock }));
    const token = await claimed(ledger);
    const heartbeat = startLeaseHeartbeat({ ledger, key: 'k', token, clock });
    expect(clock.pending()).toBe(0);
    expect(clock.sleeps).toEqual([]);
    heartbeat.stop();
    expect(heartbeat.lost).toBe(false);
  });
});

describe('leaseRenewalIntervalMs', () => {
  it('is a third of the ledger lease, or of the 30 s default when the store has none', () => {
    expect(leaseRenewalIntervalMs(new MemoryLedger())).toBe(10_000);
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
        first.runtime.execute({ toolName: 'send_invoice', toolCallId: 'a', input, execute }),
        second.runtime.execute({ toolName: 'send_invoice', toolCallId: 'b', input, execute }),
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
    // The heartbeat stopped with the write: no timer keeps ticking.
    expect(clock.pending()).toBe(0);
  });

  it('renewed the lease at a third of leaseMs while the write ran', async () => {
    const { clock } = await runTwoWorkers();
    expect(
      clock.sleeps.filter((ms) => ms === Math.floor(leaseMs / 3)).length,
    ).toBeGreaterThanOrEqual(8);
  });
});
