import { describe, expect, it } from 'vitest';
import type { Denial, Ledger } from '../ledger/ledger.js';
import type { LedgerContractHarness } from './ledger-contract.js';

/** Resolves once `check` passes, polling real time for a while (push stores deliver asynchronously). */
async function eventually(check: () => boolean, ms = 3_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('the change was not delivered in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function live(watch: { live: boolean }): Promise<void> {
  await eventually(() => watch.live);
}

/** Stores that push changes (`watchFacts`); skipped for a store without it. */
export function describeWatchContract(harness: () => LedgerContractHarness): void {
  const run = (suffix: string) => `${harness().context.namespace}-${suffix}`;
  const denial = (resource: string): Denial => ({ resource, tool: 't', reason: 'HTTP_403', at: 1 });
  const watchable = (ledger: Ledger) => typeof ledger.watchFacts === 'function';

  describe('fact watches', () => {
    it('tells every handle watching the run about a fact added through any handle', async (ctx) => {
      const handles = await harness().handles();
      if (!watchable(handles[0]!)) return ctx.skip();
      const seen = handles.map(() => 0);
      const watches = handles.map((h, i) =>
        h.watchFacts!(run('a'), () => {
          seen[i]! += 1;
        }),
      );
      try {
        for (const watch of watches) await live(watch);
        expect(watches.map((watch) => watch.live)).toEqual(handles.map(() => true));
        const before = [...seen];
        await handles[handles.length - 1]!.addFact(run('a'), 'denial', 'r', denial('r'));
        await eventually(() => seen.every((count, i) => count > before[i]!));
        // Every handle was told, the one that added the fact included.
        expect(seen.map((count, i) => count - before[i]! >= 1)).toEqual(handles.map(() => true));
      } finally {
        for (const watch of watches) watch.close();
      }
    });

    it('does not call a watcher of another run, nor one that was closed', async (ctx) => {
      const { ledger } = harness();
      if (!watchable(ledger)) return ctx.skip();
      let other = 0;
      let closed = 0;
      let mine = 0;
      const otherWatch = ledger.watchFacts!(run('b'), () => {
        other += 1;
      });
      const closedWatch = ledger.watchFacts!(run('a'), () => {
        closed += 1;
      });
      const mineWatch = ledger.watchFacts!(run('a'), () => {
        mine += 1;
      });
      try {
        await live(otherWatch);
        await live(closedWatch);
        await live(mineWatch);
        const [otherBefore, closedBefore] = [other, closed];
        closedWatch.close();
        await ledger.addFact(run('a'), 'denial', 'r', denial('r'));
        await eventually(() => mine > 0);
        // A later fact on the other run proves delivery order: by then ours was delivered too.
        await ledger.addFact(run('b'), 'denial', 'z', denial('z'));
        await eventually(() => other > otherBefore);
        expect(closed).toBe(closedBefore);
        expect(other).toBe(otherBefore + 1);
      } finally {
        otherWatch.close();
        mineWatch.close();
      }
    });
  });
}
