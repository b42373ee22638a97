import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRecovery } from '@recourse/ai-sdk';
import { SqliteLedger } from '@recourse/core/sqlite';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, tool } from 'ai';
import { z } from 'zod';
import { createPaymentProvider } from '../shared/downstream.js';
import { createExampleModel } from '../shared/model.js';
import { createTrace, type Log, type Observer } from '../shared/trace.js';

/**
 * The refund lands, the response is lost (timeout after the write). recourse reconciles
 * before re-sending anything; the model asks for the same refund again; exactly one
 * refund exists, and every request carried the same idempotency key.
 */
export async function runRefundExample(log: Log = console.log, observe?: Observer) {
  const payments = createPaymentProvider({ loseResponses: 1 });
  const ledger = new SqliteLedger({
    path: join(mkdtempSync(join(tmpdir(), 'recourse-')), 'ledger.sqlite'),
  });
  const { model, close } = createExampleModel([
    toolCall('refund_payment', { paymentId: 'p-42', amount: 100 }),
    toolCall('refund_payment', { paymentId: 'p-42', amount: 100 }), // the model asks again
    text('Payment p-42 was refunded once (100).'),
  ]);
  const trace = createTrace(log, observe);
  const recovery = createRecovery({
    runId: 'run-1842',
    ledger,
    onEvent: trace.onEvent,
    policies: {
      refund_payment: {
        sideEffects: true,
        reconcile: async (_input, { idempotencyKey }) =>
          (await payments.findByKey(idempotencyKey))
            ? { happened: true, result: { status: 'refunded' } }
            : { happened: false },
        resource: (input: { paymentId: string }) => `payment:${input.paymentId}`,
      },
    },
  });
  try {
    const result = await generateText({
      model,
      prompt: 'Refund payment p-42 for 100.',
      tools: recovery.tools({
        refund_payment: tool({
          description: 'Refund a payment',
          inputSchema: z.object({ paymentId: z.string(), amount: z.number().positive() }),
          execute: ({ paymentId, amount }) => payments.refund(paymentId, amount),
        }),
      }),
      stopWhen: [isStepCount(6), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });
    const outcome = recovery.outcome();
    trace.printOutcome(outcome);
    log(
      `downstream: ${payments.refunds.length} refund(s), ${new Set(payments.requests).size} idempotency key(s) over ${payments.requests.length} request(s)`,
    );
    return { outcome, text: result.text, refunds: payments.refunds, requests: payments.requests };
  } finally {
    close();
    await ledger.close();
  }
}
