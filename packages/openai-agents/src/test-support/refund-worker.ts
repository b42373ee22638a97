// One worker process of run `run-workers`: the real `@openai/agents` runner against its own
// scripted model (msw in this process), its refund tool posting to the parent's payments
// server, its ledger the shared PostgreSQL table. Started by workers.test.ts.
import {
  Agent,
  run,
  setDefaultOpenAIClient,
  setOpenAIAPI,
  setTracingDisabled,
} from '@openai/agents';
import type { Ledger } from '@recourse/core';
import type { ClaimRequest } from '@recourse/core/store';
import { PostgresLedger } from '@recourse/store-postgres';
import { createScriptedProvider, text, toolCall } from '@recourse/testing';
import { http, passthrough } from 'msw';
import { setupServer } from 'msw/node';
import OpenAI from 'openai';
import { z } from 'zod';
import { callContext, createRecovery, tool } from '../index.js';

export interface RefundWorkerConfig {
  payments: string;
  connectionString: string;
  table: string;
}
export type RefundWorkerMessage =
  | { type: 'ready' }
  | { type: 'in-flight' }
  | { type: 'finished'; output: string; status: string; refundRequests: number };

const config = JSON.parse(process.env.RECOURSE_REFUND_WORKER ?? '{}') as RefundWorkerConfig;
const send = (message: RefundWorkerMessage) => process.send?.(message);

const refund = { paymentId: 'p-42', amount: 100 };
const provider = createScriptedProvider({
  script: [
    toolCall('refund_payment', refund),
    (request) => text(request.toolResults[0]?.output ?? ''),
  ],
});
const server = setupServer(
  ...provider.handlers,
  http.all(`${config.payments}/*`, () => passthrough()),
);
server.listen({ onUnhandledFrame: 'error' });
setTracingDisabled(true);
setOpenAIAPI('responses');
setDefaultOpenAIClient(new OpenAI({ apiKey: 'test', baseURL: provider.baseURL, maxRetries: 0 }));

/** The shared ledger, telling the parent when this worker's claim finds the other's in flight. */
function reportingInFlight(ledger: Ledger): Ledger {
  return new Proxy(ledger, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (property !== 'claim' || typeof value !== 'function') {
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return async (request: ClaimRequest) => {
        const result = await target.claim(request);
        if (result.status === 'in_flight') send({ type: 'in-flight' });
        return result;
      };
    },
  });
}

const ledger = new PostgresLedger({
  connectionString: config.connectionString,
  table: config.table,
});
let refundRequests = 0;
const recovery = createRecovery({
  runId: 'run-workers',
  ledger: reportingInFlight(ledger),
  warn: false,
  policies: { refund_payment: { sideEffects: true } },
});
const agent = new Agent({
  name: 'payments',
  model: 'gpt-4o',
  toolUseBehavior: recovery.toolUseBehavior,
  tools: recovery.tools([
    tool({
      name: 'refund_payment',
      description: 'Refund a payment',
      parameters: z.object({ paymentId: z.string(), amount: z.number() }),
      execute: async (input) => {
        refundRequests += 1;
        const response = await fetch(`${config.payments}/refunds`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'idempotency-key': callContext().idempotencyKey,
          },
          body: JSON.stringify(input),
        });
        return response.json();
      },
    }),
  ]),
});

process.once('message', async () => {
  const result = await run(agent, 'Refund p-42');
  send({
    type: 'finished',
    output: String(result.finalOutput),
    status: recovery.outcome().status,
    refundRequests,
  });
  server.close();
  await ledger.close();
  process.disconnect();
});
send({ type: 'ready' });
