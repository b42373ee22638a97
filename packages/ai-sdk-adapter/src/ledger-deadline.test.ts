import { createRecovery } from '@recourse/ai-sdk';
import { type Ledger, MemoryLedger, type RecoveryEvent } from '@recourse/core';
import { createFakeClock } from '@recourse/core/testing';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  driveClock,
  failureIn,
  readContract,
  useScriptedProvider,
} from '../test-support/harness.js';

const { provider, chat } = useScriptedProvider();
const transferArgs = { account: 'a-7', amount: 500 };

/** A store whose `claim` or `complete` never answers: a connection that hangs, no error. */
function hangingLedger(inner: MemoryLedger, hang: 'claim' | 'complete'): Ledger {
  const never = new Promise<never>(() => {});
  return {
    name: 'hanging',
    leaseMs: inner.leaseMs,
    claim: (request) => (hang === 'claim' ? never : inner.claim(request)),
    complete: (key, token, result) =>
      hang === 'complete' ? never : inner.complete(key, token, result),
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

function setUp(hang: 'claim' | 'complete') {
  const clock = createFakeClock();
  const events: RecoveryEvent[] = [];
  const recovery = createRecovery({
    runId: 'run-ld',
    ledger: hangingLedger(new MemoryLedger({ clock }), hang),
    clock,
    random: () => 0.5,
    policies: { transfer: { sideEffects: true } },
    onEvent: (event) => events.push(event),
  });
  const transfers: unknown[] = [];
  const tools = recovery.tools({
    transfer: tool({
      description: 'Transfer money',
      inputSchema: z.object({ account: z.string(), amount: z.number() }),
      execute: async (input) => {
        transfers.push(input);
        return { transferId: `t-${transfers.length}` };
      },
    }),
  });
  return { clock, events, recovery, tools, transfers };
}

describe('a ledger that hangs, through generateText', () => {
  it('a claim that never answers: the loop ends LEDGER_UNAVAILABLE, the transfer is never sent', async () => {
    provider.reset([toolCall('transfer', transferArgs), text('should not be asked')]);
    const { clock, recovery, tools, transfers } = setUp('claim');
    const result = await driveClock(
      clock,
      generateText({
        model: chat(),
        prompt: 'Transfer 500 to a-7',
        tools,
        stopWhen: [isStepCount(4), recovery.stopWhen],
      }),
    );
    expect(transfers).toEqual([]);
    const { contract } = failureIn(result.steps[0]);
    expect(contract).toMatchObject({
      failure_class: 'TRANSIENT',
      code: 'LEDGER_UNAVAILABLE',
      recommended_recovery: 'ABORT',
      retry_same_action: false,
    });
    expect(contract.error_detail).toContain('claim did not answer within 5000 ms');
    // stopWhen ended the loop: the model was not asked again.
    expect(result.steps).toHaveLength(1);
    expect(provider.requests).toHaveLength(1);
    expect(recovery.outcome()).toMatchObject({ status: 'FAILED', reason: 'LEDGER_UNAVAILABLE' });
  });

  it('a complete that never answers: the model gets the result, and asking again sends nothing', async () => {
    provider.reset([
      toolCall('transfer', transferArgs),
      toolCall('transfer', transferArgs),
      text('done'),
    ]);
    const { clock, events, recovery, tools, transfers } = setUp('complete');
    await driveClock(
      clock,
      generateText({
        model: chat(),
        prompt: 'Transfer 500 to a-7',
        tools,
        stopWhen: [isStepCount(5), recovery.stopWhen],
      }),
    );
    expect(transfers).toHaveLength(1);
    const [first, second] = provider.toolResults().map((r) => r.output);
    expect(JSON.parse(first ?? '')).toEqual({ transferId: 't-1' });
    expect(readContract(second ?? '')).toMatchObject({
      status: 'IN_FLIGHT',
      code: 'IN_FLIGHT',
      retry_same_action: false,
    });
    expect(events.filter((e) => e.type === 'result.not-stored')).toEqual([
      expect.objectContaining({
        tool: 'transfer',
        reason: expect.stringContaining('complete did not answer within 5000 ms'),
      }),
    ]);
  });
});
