import { describe, expect, it } from 'vitest';
import { createHarness, drive, httpFailure } from '../../../test-support/runtime-harness.js';
import { MemoryLedger } from '../../ledger/memory-ledger.js';
import { createFakeClock } from '../../testing/fake-clock.js';
import { callContext } from '../call-context.js';
import type { ToolPolicy } from '../options/recovery-options.js';

/** A downstream that records every request under its key; `hang` never answers (the process dies there). */
function createDownstream() {
  const requests: string[] = [];
  return {
    requests,
    apply: () => {
      requests.push(callContext().idempotencyKey);
      return 'applied';
    },
    hang: () => {
      requests.push(callContext().idempotencyKey);
      return new Promise<never>(() => {});
    },
  };
}

/** Two executions of one run on one ledger: the first dies mid-call, the second resumes it. */
function twoExecutions(
  policy: ToolPolicy,
  engine = true,
  retry: { maxElapsedMs?: number; maxDelayMs?: number } = {},
) {
  const clock = createFakeClock(1_000_000);
  const ledger = new MemoryLedger({ clock });
  const sleeps: number[] = [];
  const optionsWith = (sleep: (ms: number) => Promise<void>) => ({
    policies: { charge: policy },
    retry,
    ...(engine
      ? {
          engine: {
            sleep: (ms: number) => {
              sleeps.push(ms);
              return sleep(ms);
            },
          },
        }
      : {}),
  });
  // The earlier execution dies in any wait: its sleeps never end.
  const earlier = createHarness(
    optionsWith(() => new Promise<never>(() => {})),
    { clock, ledger },
  );
  const resumed = createHarness(
    optionsWith((ms) => clock.sleep(ms)),
    { clock, ledger },
  );
  return { clock, ledger, sleeps, earlier, resumed };
}

describe('a run executed by a durable engine (engine option)', () => {
  it("takes an earlier execution's claim over at once: the write is in doubt and reconciled, never waited out", async () => {
    const downstream = createDownstream();
    let reconciled = 0;
    const { earlier, resumed, clock } = twoExecutions({
      sideEffects: true,
      reconcile: () => {
        reconciled++;
        return { happened: true, result: 'applied' };
      },
    });
    // The first execution dies while its write runs: the call never settles.
    void earlier.runtime.execute({
      toolName: 'charge',
      toolCallId: 'c1',
      input: { amount: 5 },
      execute: downstream.hang,
    });
    await new Promise((resolve) => setImmediate(resolve));
    const result = await resumed.run('charge', { amount: 5 }, downstream.apply);
    expect(result).toMatchObject({ ok: true, value: 'applied', deduplicated: true });
    expect(reconciled).toBe(1);
    expect(downstream.requests).toHaveLength(1);
    // Not one poll of an in-flight claim: taken over on the first claim.
    expect(clock.sleeps).not.toContain(100);
    expect(resumed.events.map((e) => e.type)).not.toContain('call.in-flight');
  });

  it('without the option the same claim is waited out and reported IN_FLIGHT (the lease is live)', async () => {
    const downstream = createDownstream();
    const { earlier, resumed, clock } = twoExecutions(
      { sideEffects: true, reconcile: () => ({ happened: false }) },
      false,
    );
    void earlier.runtime.execute({
      toolName: 'charge',
      toolCallId: 'c1',
      input: { amount: 5 },
      execute: downstream.hang,
    });
    await new Promise((resolve) => setImmediate(resolve));
    const result = await resumed.run('charge', { amount: 5 }, downstream.apply);
    expect(result).toMatchObject({ ok: false, contract: { status: 'IN_FLIGHT' } });
    expect(downstream.requests).toHaveLength(1);
    expect(clock.sleeps).toContain(100);
  });

  it('a write with neither reconcile nor idempotent, taken over, is left in doubt and never re-sent', async () => {
    const downstream = createDownstream();
    const { earlier, resumed } = twoExecutions({ sideEffects: true });
    void earlier.runtime.execute({
      toolName: 'charge',
      toolCallId: 'c1',
      input: { amount: 5 },
      execute: downstream.hang,
    });
    await new Promise((resolve) => setImmediate(resolve));
    const result = await resumed.run('charge', { amount: 5 }, downstream.apply);
    expect(result).toMatchObject({
      ok: false,
      decision: { action: 'ABORT', code: 'RECONCILE_BY_HAND' },
    });
    expect(downstream.requests).toHaveLength(1);
    expect(resumed.runtime.outcome().needs_reconciliation).toHaveLength(1);
  });

  it('a duplicate inside the same execution waits for the first; it does not take the claim over', async () => {
    const h = createHarness({
      policies: { charge: { sideEffects: true } },
      engine: {},
      inFlightWaitMs: 10_000,
    });
    let release: (value: string) => void = () => {};
    const sent: string[] = [];
    const first = h.runtime.execute({
      toolName: 'charge',
      toolCallId: 'a',
      input: { amount: 5 },
      execute: () => {
        sent.push('first');
        return new Promise<string>((resolve) => {
          release = resolve;
        });
      },
    });
    await new Promise((resolve) => setImmediate(resolve));
    const second = drive(
      h.clock,
      h.runtime.execute({
        toolName: 'charge',
        toolCallId: 'b',
        input: { amount: 5 },
        execute: () => {
          sent.push('second');
          return 'second';
        },
      }),
    );
    await h.clock.advance(500);
    release('first');
    expect(await first).toMatchObject({ ok: true, value: 'first' });
    expect(await second).toMatchObject({ ok: true, value: 'first', deduplicated: true });
    expect(sent).toEqual(['first']);
  });

  it('a Retry-After wait survives a restart: the resumed execution waits out the rest before it sends again', async () => {
    const requests: number[] = [];
    const tenMinutes = 600_000;
    const { earlier, resumed, clock, sleeps } = twoExecutions(
      { sideEffects: true, idempotent: true },
      true,
      { maxElapsedMs: 2 * tenMinutes, maxDelayMs: 2 * tenMinutes },
    );
    // The first execution is refused with a Retry-After of ten minutes and dies while waiting.
    void earlier.runtime.execute({
      toolName: 'charge',
      toolCallId: 'c1',
      input: { amount: 5 },
      execute: () => {
        requests.push(clock.now());
        throw httpFailure(429, 'slow down', { 'retry-after': String(tenMinutes / 1000) });
      },
    });
    for (let i = 0; i < 20 && sleeps.length === 0; i++)
      await new Promise((resolve) => setImmediate(resolve));
    expect(sleeps).toEqual([tenMinutes]);
    const diedAt = clock.now();
    await clock.advance(60_000); // the restart takes a minute
    const result = await resumed.run('charge', { amount: 5 }, () => {
      requests.push(clock.now());
      return 'applied';
    });
    expect(result).toMatchObject({ ok: true, value: 'applied' });
    expect(requests).toHaveLength(2);
    expect(requests[1]).toBeGreaterThanOrEqual(diedAt + tenMinutes);
    // The rest was slept through the engine's sleep, not the clock's.
    expect(sleeps).toEqual([tenMinutes, tenMinutes - 60_000 + 1]);
  });

  it('a resumed idempotent write is replayed behind its key at once', async () => {
    const keys: string[] = [];
    const { earlier, resumed, clock } = twoExecutions({ sideEffects: true, idempotent: true });
    void earlier.runtime.execute({
      toolName: 'charge',
      toolCallId: 'c1',
      input: { amount: 5 },
      execute: () => {
        keys.push(callContext().idempotencyKey);
        return new Promise<never>(() => {});
      },
    });
    await new Promise((resolve) => setImmediate(resolve));
    const result = await resumed.run('charge', { amount: 5 }, () => {
      keys.push(callContext().idempotencyKey);
      return 'applied';
    });
    expect(result).toMatchObject({ ok: true, value: 'applied' });
    expect(keys).toHaveLength(2);
    expect(new Set(keys).size).toBe(1);
    expect(clock.sleeps).not.toContain(100);
  });

  it('rejects an engine option that is not an object of known fields, naming the field', () => {
    expect(() => createHarness({ engine: { slep: () => {} } as never })).toThrow(
      expect.objectContaining({ field: 'engine.slep' }),
    );
    expect(() => createHarness({ engine: { sleep: 5 } as never })).toThrow(
      expect.objectContaining({ field: 'engine.sleep' }),
    );
  });
});
