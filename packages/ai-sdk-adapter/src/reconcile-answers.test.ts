import { createRecovery } from '@recourse/ai-sdk';
import { MemoryLedger, type RecoveryEvent, type ToolPolicy } from '@recourse/core';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createDownstream, readContract, useScriptedProvider } from '../test-support/harness.js';

const { provider, chat } = useScriptedProvider();
const refundArgs = { paymentId: 'p-42', amount: 100 };

function refundTool(downstream: ReturnType<typeof createDownstream>) {
  let calls = 0;
  return tool({
    description: 'Refund a payment',
    inputSchema: z.object({ paymentId: z.string(), amount: z.number() }),
    // The first request lands downstream, but its response is lost.
    execute: async (input) => downstream.apply(input, ++calls === 1),
  });
}

type Reconcile = NonNullable<ToolPolicy['reconcile']>;

// What a hurried reconcile returns instead of `{ happened: true, result? }` / `{ happened: false }`.
// The third field: the reconcile fails with its own error instead of answering.
const answers: [string, () => unknown, boolean][] = [
  ['true', () => true, false],
  ["'yes'", () => 'yes', false],
  ['{ happend: true }', () => ({ happend: true }), false],
  ["{ happened: 'yes' }", () => ({ happened: 'yes' }), false],
  ['undefined', () => undefined, false],
  [
    'a throw',
    () => {
      throw new Error('payments API down');
    },
    true,
  ],
  ['a rejection', () => Promise.reject(new Error('payments API down')), true],
];

describe('a reconcile answer that is not { happened: boolean } proves nothing', () => {
  it.each(answers)(
    '%s → RECONCILE_FAILED: the refund stays in doubt, is listed, and is never re-sent',
    async (_label, answer, throws) => {
      provider.reset([
        toolCall('refund_payment', refundArgs),
        toolCall('refund_payment', refundArgs),
        text('done'),
      ]);
      const downstream = createDownstream();
      const asked: string[] = [];
      // Plain JavaScript: nothing checks the answer's shape before recourse does.
      const reconcile = ((_input, { idempotencyKey }) => {
        asked.push(idempotencyKey);
        return answer();
      }) as Reconcile;
      const events: RecoveryEvent[] = [];
      const ledger = new MemoryLedger();
      const recovery = createRecovery({
        runId: 'run-r1',
        ledger,
        policies: { refund_payment: { sideEffects: true, reconcile } },
        onEvent: (event) => events.push(event),
      });

      // No stopWhen: the model's repeat reaches the wrapper.
      await generateText({
        model: chat(),
        prompt: 'Refund p-42',
        tools: recovery.tools({ refund_payment: refundTool(downstream) }),
        stopWhen: isStepCount(5),
      });

      expect(downstream.applied).toHaveLength(1);
      expect(downstream.requests).toHaveLength(1);
      const key = downstream.requests[0]!.key;
      expect(asked[0]).toBe(key);
      const [first, again] = provider.toolResults().map((r) => readContract(r.output));
      expect(first).toMatchObject({
        recommended_recovery: 'ABORT',
        code: 'RECONCILE_FAILED',
        retry_same_action: false,
        idempotency_key: key,
      });
      expect(again).toMatchObject({ retry_same_action: false });
      expect(recovery.outcome()).toMatchObject({
        status: 'FAILED',
        needs_reconciliation: [
          { tool: 'refund_payment', idempotency_key: key, code: 'RECONCILE_FAILED' },
        ],
      });
      expect(events).toContainEqual(
        expect.objectContaining({ type: 'reconcile.finished', happened: 'invalid' }),
      );
      // The ledger keeps the doubt for every later claimer.
      expect((await ledger.get(key))?.state).toBe('uncertain');
      if (!throws) expect(first?.failure_class).toBe('UNKNOWN_OUTCOME');
    },
  );

  // The write's outcome is unknown whatever the reconcile threw: the contract says so, not
  // the class of the reconcile's own error.
  it.each(answers.filter(([, , throws]) => throws))(
    '%s: the contract says UNKNOWN_OUTCOME, like every other invalid answer',
    async (_label, answer) => {
      provider.reset([toolCall('refund_payment', refundArgs), text('done')]);
      const recovery = createRecovery({
        runId: 'run-r3',
        policies: { refund_payment: { sideEffects: true, reconcile: answer as Reconcile } },
      });
      await generateText({
        model: chat(),
        prompt: 'Refund p-42',
        tools: recovery.tools({ refund_payment: refundTool(createDownstream()) }),
        stopWhen: isStepCount(5),
      });
      expect(readContract(provider.toolResults()[0]!.output).failure_class).toBe('UNKNOWN_OUTCOME');
    },
  );

  it('{ happened: true } with a result: the model gets it and nothing is re-sent', async () => {
    provider.reset([toolCall('refund_payment', refundArgs), text('done')]);
    const downstream = createDownstream();
    const recovery = createRecovery({
      runId: 'run-r2',
      policies: {
        refund_payment: {
          sideEffects: true,
          reconcile: (_i, { idempotencyKey }) =>
            downstream.findByKey(idempotencyKey)
              ? { happened: true, result: 'refunded', checkedBy: 'ops' }
              : { happened: false },
        },
      },
    });
    await generateText({
      model: chat(),
      prompt: 'Refund p-42',
      tools: recovery.tools({ refund_payment: refundTool(downstream) }),
      stopWhen: [isStepCount(5), recovery.stopWhen],
    });
    expect(downstream.applied).toHaveLength(1);
    expect(provider.toolResults().map((r) => r.output)).toEqual(['refunded']);
    expect(recovery.outcome()).toMatchObject({
      status: 'COMPLETED',
      recoveries: [{ tool: 'refund_payment', code: 'TIMEOUT', action: 'RECONCILE' }],
    });
  });
});
