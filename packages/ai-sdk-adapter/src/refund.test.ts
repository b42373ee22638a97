import { createRecovery } from '@recourse/ai-sdk';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createDownstream,
  failureIn,
  readContract,
  useScriptedProvider,
} from '../test-support/harness.js';

const { provider, chat } = useScriptedProvider();
const refundArgs = { paymentId: 'p-42', amount: 100 };

// The model asks for the refund, then asks again with a new call id (it did not trust
// the first answer), then finishes.
const script = () => [
  toolCall('refund_payment', refundArgs),
  toolCall('refund_payment', refundArgs),
  text('done'),
];

function refundTool(downstream: ReturnType<typeof createDownstream>) {
  let calls = 0;
  return tool({
    description: 'Refund a payment',
    inputSchema: z.object({ paymentId: z.string(), amount: z.number() }),
    // The first request lands downstream, but its response is lost.
    execute: async (input) => downstream.apply(input, ++calls === 1),
  });
}

describe('a write whose response was lost is applied exactly once', () => {
  it('with reconcile: asks the downstream before re-sending, and the model gets the result', async () => {
    provider.reset(script());
    const downstream = createDownstream();
    const reconciled: string[] = [];
    const recovery = createRecovery({
      runId: 'run-1842',
      policies: {
        refund_payment: {
          sideEffects: true,
          reconcile: (_input, { idempotencyKey }) => {
            reconciled.push(idempotencyKey);
            return downstream.findByKey(idempotencyKey)
              ? { happened: true, result: 'refunded' }
              : { happened: false };
          },
        },
      },
    });

    const result = await generateText({
      model: chat(),
      prompt: 'Refund p-42',
      tools: recovery.tools({ refund_payment: refundTool(downstream) }),
      stopWhen: [isStepCount(10), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });

    expect(downstream.applied).toHaveLength(1);
    expect(downstream.requests).toHaveLength(1); // the repeat was answered from the ledger
    const key = downstream.requests[0]!.key;
    expect(reconciled).toEqual([key]);
    expect(provider.toolResults().map((r) => r.output)).toEqual(['refunded', 'refunded']);
    expect(result.text).toBe('done');
    expect(recovery.outcome()).toMatchObject({ status: 'COMPLETED' });
  });

  it('with idempotent: true: replays behind the same key and the downstream dedupes', async () => {
    provider.reset(script());
    const downstream = createDownstream({ dedupe: true });
    const recovery = createRecovery({
      runId: 'run-1842',
      policies: { refund_payment: { sideEffects: true, idempotent: true } },
      retry: { baseDelayMs: 0 },
    });

    await generateText({
      model: chat(),
      prompt: 'Refund p-42',
      tools: recovery.tools({ refund_payment: refundTool(downstream) }),
      stopWhen: [isStepCount(10), recovery.stopWhen],
    });

    expect(downstream.requests).toHaveLength(2); // the lost one and its replay
    expect(new Set(downstream.requests.map((r) => r.key)).size).toBe(1);
    expect(downstream.applied).toHaveLength(1);
    expect(provider.toolResults().map((r) => r.output)).toEqual(['refunded', 'refunded']);
    expect(recovery.outcome().status).toBe('COMPLETED');
  });

  it('with neither: does not re-send, and the outcome says reconcile by hand', async () => {
    provider.reset(script());
    const downstream = createDownstream();
    const recovery = createRecovery({
      runId: 'run-1842',
      policies: { refund_payment: { sideEffects: true } },
    });

    // No stopWhen: the model's repeat reaches the wrapper and must still not be sent.
    const result = await generateText({
      model: chat(),
      prompt: 'Refund p-42',
      tools: recovery.tools({ refund_payment: refundTool(downstream) }),
      stopWhen: isStepCount(10),
    });

    expect(downstream.requests).toHaveLength(1);
    expect(downstream.applied).toHaveLength(1);
    const key = downstream.requests[0]!.key;
    expect(recovery.outcome()).toMatchObject({
      status: 'FAILED',
      reason: 'RECONCILE_BY_HAND',
      needs_reconciliation: [{ tool: 'refund_payment', idempotency_key: key }],
    });
    const [first, second] = provider.toolResults().map((r) => readContract(r.output));
    expect(first).toMatchObject({
      failure_class: 'UNKNOWN_OUTCOME',
      recommended_recovery: 'ABORT',
      retry_same_action: false,
      code: 'RECONCILE_BY_HAND',
      idempotency_key: key,
    });
    expect(second).toMatchObject({ retry_same_action: false, recommended_recovery: 'ABORT' });
    // The application still has the original error object in the step content.
    expect(failureIn(result.steps[0]).cause).toBeInstanceOf(DOMException);
  });

  it('with neither and stopWhen: the loop ends after the lost write', async () => {
    provider.reset(script());
    const downstream = createDownstream();
    const recovery = createRecovery({
      runId: 'run-1842',
      policies: { refund_payment: { sideEffects: true } },
    });

    const result = await generateText({
      model: chat(),
      prompt: 'Refund p-42',
      tools: recovery.tools({ refund_payment: refundTool(downstream) }),
      stopWhen: [isStepCount(10), recovery.stopWhen],
    });

    expect(result.steps).toHaveLength(1);
    expect(provider.remaining()).toBe(2);
    expect(downstream.applied).toHaveLength(1);
    expect(recovery.outcome().status).toBe('FAILED');
  });
});
