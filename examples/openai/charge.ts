import { type Clock, callContext, systemClock } from '@recourse/core';
import { createRecovery } from '@recourse/openai';
import { text, toolCall } from '@recourse/testing';
import { z } from 'zod';
import { httpError } from '../shared/downstream.js';
import { createExampleClient } from '../shared/openai-client.js';
import { createTrace, type Log, type Observer } from '../shared/trace.js';

/**
 * A card charge through the official OpenAI SDK (Chat Completions). The first request
 * times out: did the charge land? The payment provider is asked before anything is re-sent
 * (reconcile): no charge under the idempotency key, so the same request goes again under
 * the same key, and the card is declined: 402, PERMANENT. A declined card is not retried;
 * the model is told to change the plan (another payment method). The model asks for the
 * same charge twice more: 402 again, and the third 402 is a poison step: the charge is
 * quarantined, the run stops, and the outcome tells a person to look. No charge exists.
 */
export async function runOpenAIChargeExample(
  log: Log = console.log,
  observe?: Observer,
  clock: Clock = systemClock,
) {
  const requests: string[] = []; // the idempotency key of every request the provider received
  const charges: string[] = []; // the keys of the charges the provider applied: a declined card applies none
  let lost = 1; // the first request times out before the provider received it
  const { client, model, close } = createExampleClient([
    toolCall('charge_card', { orderId: 'ord-981', amountCents: 4900 }),
    toolCall('charge_card', { orderId: 'ord-981', amountCents: 4900 }), // the model insists
    toolCall('charge_card', { orderId: 'ord-981', amountCents: 4900 }),
    text('unreachable: the run stopped'),
  ]);
  const trace = createTrace(log, observe, { guidance: true });
  const recovery = createRecovery({
    runId: 'run-checkout-402',
    onEvent: trace.onEvent,
    clock,
    policies: {
      charge_card: {
        sideEffects: true,
        idempotent: true, // the provider dedupes on the key; still, reconcile comes first
        reconcile: (_input, { idempotencyKey }) =>
          charges.includes(idempotencyKey) ? { happened: true } : { happened: false },
      },
    },
  });
  const tools = recovery.tools({
    charge_card: {
      description: 'Charge the card on file for an order',
      inputSchema: z.object({ orderId: z.string(), amountCents: z.number().int() }),
      execute: async (): Promise<string> => {
        if (lost-- > 0) {
          throw new DOMException('The operation was aborted due to timeout', 'TimeoutError');
        }
        requests.push(callContext().idempotencyKey);
        throw httpError(402, 'Your card was declined.');
      },
    },
  });
  try {
    const result = await recovery.runChat(client, {
      model,
      messages: [{ role: 'user', content: 'Charge order ord-981 (49.00).' }],
      tools,
      maxSteps: 6,
    });
    trace.printOutcome(result.outcome);
    log(
      `provider: ${charges.length} charge(s); ${requests.length} declined request(s) under ${new Set(requests).size} key(s)`,
    );
    return { outcome: result.outcome, charges, requests };
  } finally {
    close();
  }
}
