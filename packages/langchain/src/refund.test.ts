import { callContext, createRecovery } from '@recourse/langchain';
import { text, toolCall } from '@recourse/testing';
import { type AgentMiddleware, createAgent, tool, toolRetryMiddleware } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toolOutputs, useScriptedProvider } from '../test-support/harness.js';
import { createPayments, currentKey, findRefund, postRefund } from '../test-support/payments.js';

const { provider, model, use } = useScriptedProvider();
const refundArgs = { paymentId: 'p-42', amount: 100 };

const refundPayment = tool(async (input) => postRefund(input, callContext().idempotencyKey), {
  name: 'refund_payment',
  description: 'Refund a payment',
  schema: z.object({ paymentId: z.string(), amount: z.number() }),
});

describe('a refund whose response was lost, through createAgent', () => {
  it('is reconciled and applied once, however often the model asks', async () => {
    const payments = createPayments({ answers: ['lose-response'] });
    use(...payments.handlers);
    provider.reset([
      toolCall('refund_payment', refundArgs),
      toolCall('refund_payment', refundArgs), // the model asks again, with a new call id
      text('done'),
    ]);
    const reconciled: string[] = [];
    const recovery = createRecovery({
      runId: 'run-1842',
      policies: {
        refund_payment: {
          sideEffects: true,
          reconcile: async (_input, { idempotencyKey }) => {
            reconciled.push(idempotencyKey);
            return (await findRefund(idempotencyKey))
              ? { happened: true, result: 'refunded (found by its key)' }
              : { happened: false };
          },
        },
      },
    });
    const agent = createAgent({
      model: model(),
      tools: [refundPayment],
      middleware: [recovery.middleware],
    });

    const result = await agent.invoke({ messages: [{ role: 'user', content: 'Refund p-42' }] });

    expect(payments.applied).toHaveLength(1);
    expect(payments.requests).toHaveLength(1); // the repeat was answered from the ledger
    const key = payments.requests[0]!.key;
    expect(key).toMatch(/^run-1842:refund_payment:/);
    expect(reconciled).toEqual([key]);
    expect(toolOutputs(provider)).toEqual([
      'refunded (found by its key)',
      'refunded (found by its key)',
    ]);
    expect(result.messages.at(-1)?.text).toBe('done');
    expect(recovery.outcome()).toMatchObject({
      status: 'COMPLETED',
      completed_steps: ['refund_payment'],
      recoveries: [{ tool: 'refund_payment', code: 'TIMEOUT', action: 'RECONCILE' }],
    });
  });
});

describe('the same lost refund with LangChain alone (the baselines)', () => {
  const script = () => [
    toolCall('refund_payment', refundArgs),
    toolCall('refund_payment', refundArgs),
    text('done'),
  ];
  const baselineRefund = tool(async (input) => postRefund(input, currentKey()), {
    name: 'refund_payment',
    description: 'Refund a payment',
    schema: z.object({ paymentId: z.string(), amount: z.number() }),
  });

  it('no middleware: the error goes to the model ("Please fix your mistakes"), which asks again', async () => {
    const payments = createPayments({ answers: ['lose-response'] });
    use(...payments.handlers);
    provider.reset(script());
    const agent = createAgent({ model: model(), tools: [baselineRefund] });

    await agent.invoke({ messages: [{ role: 'user', content: 'Refund p-42' }] });

    console.log(`lost refund, LangChain alone: ${payments.applied.length - 1} duplicate refund(s)`);
    expect(String(toolOutputs(provider)[0])).toMatch(/TimeoutError[\s\S]*Please fix your mistakes/);
    expect(payments.applied).toHaveLength(2);
  });

  it('toolRetryMiddleware (its defaults, delays shortened): the timeout is retried in place', async () => {
    const payments = createPayments({ answers: ['lose-response'] });
    use(...payments.handlers);
    provider.reset(script());
    // Only the waits differ from the defaults (1 s × 2ⁿ), to keep the test short.
    // (LangChain's own middleware types reject exactOptionalPropertyTypes, hence the cast.)
    const retry = toolRetryMiddleware({ initialDelayMs: 1 }) as unknown as AgentMiddleware;
    const agent = createAgent({ model: model(), tools: [baselineRefund], middleware: [retry] });

    await agent.invoke({ messages: [{ role: 'user', content: 'Refund p-42' }] });

    console.log(
      `lost refund, toolRetryMiddleware: ${payments.applied.length - 1} duplicate refund(s)`,
    );
    expect(payments.applied).toHaveLength(3); // the lost one, its retry, the model's repeat
    expect(new Set(payments.requests.map((r) => r.key)).size).toBe(3);
  });
});
