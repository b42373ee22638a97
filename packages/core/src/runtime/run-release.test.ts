// A finished run lets go of what it held: its watch of the store (by `close()`, or when the
// runtime is collected), and no timer or listener per run. Real runtimes on a real ledger;
// the ledger subclass only counts (it changes nothing the ledger does).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { FactWatch, RunFactLists } from '../ledger/ledger.js';
import { MemoryLedger } from '../ledger/memory-ledger.js';
import { createRecoveryRuntime, type RecoveryRuntime } from './create-runtime.js';

/** A MemoryLedger that counts the watches open on it and the reads of a run's facts. */
class CountingLedger extends MemoryLedger {
  openWatches = 0;
  factReads = 0;

  override watchFacts(runId: string, onChange: () => void): FactWatch {
    const watch = super.watchFacts(runId, onChange);
    this.openWatches++;
    let open = true;
    return {
      live: watch.live,
      close: () => {
        if (open) this.openWatches--;
        open = false;
        watch.close();
      },
    };
  }

  override listFacts(runId: string): Promise<RunFactLists> {
    this.factReads++;
    return super.listFacts(runId);
  }
}

const policies = {
  lookup_order: { sideEffects: false },
  refund_payment: { sideEffects: true, idempotent: true },
} as const;

/** One request's run: a read and a write, each awaited, as a server handles a request. */
async function serve(ledger: CountingLedger, runId: string): Promise<RecoveryRuntime> {
  const runtime = createRecoveryRuntime({ runId, ledger, policies });
  const lookup = await runtime.execute({
    toolName: 'lookup_order',
    toolCallId: `${runId}-1`,
    input: { orderId: 'o-1' },
    turn: runId,
    execute: () => ({ status: 'shipped' }),
  });
  const refund = await runtime.execute({
    toolName: 'refund_payment',
    toolCallId: `${runId}-2`,
    input: { paymentId: 'p-1' },
    turn: runId,
    execute: () => ({ refundId: 'r-1' }),
  });
  expect([lookup.ok, refund.ok]).toEqual([true, true]);
  return runtime;
}

const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

// The same switch the overhead benchmark uses: a full collection on demand.
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

describe('a finished run', () => {
  it('stops watching the store on close(), and still reads the run’s facts after it', async () => {
    const ledger = new CountingLedger();
    const runtime = await serve(ledger, 'run-close');
    expect(ledger.openWatches).toBe(1);
    runtime.close();
    runtime.close(); // idempotent
    expect(ledger.openWatches).toBe(0);
    // Not watched any more: a call reads the facts first, and a denial stored meanwhile by
    // another worker is honoured.
    await ledger.addFact('run-close', 'denial', 'all', {
      resource: 'payment:p-2',
      tool: 'refund_payment',
      reason: 'AUTHORIZATION',
      at: 0,
    });
    const reads = ledger.factReads;
    let sent = 0;
    const after = await runtime.execute({
      toolName: 'refund_payment',
      toolCallId: 'run-close-3',
      input: { paymentId: 'p-2' },
      execute: () => ++sent,
    });
    expect(ledger.factReads).toBeGreaterThan(reads);
    expect(after).toMatchObject({ ok: false });
    expect(sent).toBe(0);
  });

  it('holds no watch, timer or process listener once dropped: 50 runs on one ledger', async () => {
    const ledger = new CountingLedger();
    const timersBefore = timers();
    const listenersBefore = process.eventNames().map((name) => process.listenerCount(name));
    for (let i = 0; i < 50; i++) await serve(ledger, `run-dropped-${i}`);
    // The lease renewal ticker is the ledger's, shared by every run (it stops itself a third
    // of a lease after its last claim): at most one, never one per run.
    expect(timers() - timersBefore).toBeLessThanOrEqual(1);
    expect(process.eventNames().map((name) => process.listenerCount(name))).toEqual(
      listenersBefore,
    );
    // Nobody called close(): the runtimes' watches end when they are collected.
    for (let i = 0; i < 50 && ledger.openWatches > 0; i++) {
      collect();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(ledger.openWatches).toBe(0);
  });
});
