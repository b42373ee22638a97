import { MemoryLedger } from '@recourse/core';
import { createRecovery } from '@recourse/openai';
import { text, toolCall } from '@recourse/testing';
import { z } from 'zod';
import { createPaymentProvider } from '../shared/downstream.js';
import { createExampleClient } from '../shared/openai-client.js';
import { createTrace, type Log, type Observer } from '../shared/trace.js';

/** The refund example through the official OpenAI SDK and the Responses API. */
export async function runOpenAIRefundExample(log: Log = console.log, observe?: Observer) {
  const payments = createPaymentProvider({ loseResponses: 1 });
  const { client, model, close } = createExampleClient([
    toolCall('refund_payment', { paymentId: 'p-42', amount: 100 }),
    toolCall('refund_payment', { paymentId: 'p-42', amount: 100 }),
    text('Payment p-42 was refunded once (100).'),
  ]);
  const trace = createTrace(log, observe);
  const recovery = createRecovery({
    runId: 'run-1843',
    ledger: new MemoryLedger(),
    onEvent: trace.onEvent,
    policies: {
      refund_payment: {
        sideEffects: true,
        reconcile: async (_input, { idempotencyKey }) =>
          (await payments.findByKey(idempotencyKey))
            ? { happened: true, result: { status: 'refunded' } }
            : { happened: false },
      },
    },
  });
  const tools = recovery.tools({
    refund_payment: {
      description: 'Refund a payment',
      inputSchema: z.object({ paymentId: z.string(), amount: z.number() }),
      execute: ({ paymentId, amount }) => payments.refund(paymentId, amount),
    },
  });
  try {
    const result = await recovery.runResponses(client, {
      model,
      input: 'Refund payment p-42 for 100.',
      tools,
      maxSteps: 6,
    });
    trace.printOutcome(result.outcome);
    log(
      `downstream: ${payments.refunds.length} refund(s) under ${new Set(payments.requests).size} idempotency key(s)`,
    );
    return { outcome: result.outcome, refunds: payments.refunds, text: result.text };
  } finally {
    close();
  }
}
