// An OpenAI SDK agent as a user writes it, with only `@recourse/openai`, `openai` and zod
// (plus `@recourse/testing` + msw for the scripted model) installed.
import assert from 'node:assert/strict';
import { createRecovery, MemoryLedger } from '@recourse/openai';
import { createScriptedProvider, startProviderServer, text, toolCall } from '@recourse/testing';
import OpenAI from 'openai';
import { z } from 'zod';

const provider = createScriptedProvider();
const server = startProviderServer(provider);
// Created after msw started: the client keeps the fetch it finds. recourse owns retries.
const client = new OpenAI({ apiKey: 'test', baseURL: provider.baseURL, maxRetries: 0 });

try {
  // Responses API: a refund whose first request gets a 503 is retried behind the same key
  // and applied once.
  provider.reset([
    toolCall('refund_payment', { paymentId: 'p-42', amount: 100 }),
    text('refunded'),
  ]);
  const keys: string[] = [];
  const recovery = createRecovery({
    runId: 'consumer-openai-refund',
    ledger: new MemoryLedger(),
    retry: { baseDelayMs: 1 },
    policies: { refund_payment: { sideEffects: true, idempotent: true } },
  });
  const tools = recovery.tools({
    refund_payment: {
      description: 'Refund a payment',
      inputSchema: z.object({ paymentId: z.string(), amount: z.number() }),
      execute: async (input, { idempotencyKey }) => {
        keys.push(idempotencyKey);
        if (keys.length === 1) {
          throw Object.assign(new Error('Service Unavailable'), { status: 503 });
        }
        return { refunded: input.paymentId, amount: input.amount };
      },
    },
  });
  const refund = await recovery.runResponses(client, {
    model: 'gpt-4o',
    input: 'Refund p-42',
    tools,
  });
  assert.equal(refund.text, 'refunded');
  assert.equal(refund.outcome.status, 'COMPLETED');
  assert.equal(keys.length, 2);
  assert.equal(keys[0], keys[1], 'the retry carried the same idempotency key');
  assert.deepEqual(JSON.parse(provider.toolResults()[0]?.output ?? 'null'), {
    refunded: 'p-42',
    amount: 100,
  });

  // Chat Completions, streaming: a 403 ends the run BLOCKED, every call id answered.
  provider.reset([toolCall('github_api', { repo: 'acme/secret' }), text('never asked')]);
  const denied = createRecovery({ runId: 'consumer-openai-denial' });
  const blocked = await denied.runChat(client, {
    model: 'gpt-4o',
    messages: [{ role: 'user', content: 'Read acme/secret' }],
    stream: true,
    tools: denied.tools({
      github_api: {
        description: 'Read a repository',
        inputSchema: z.object({ repo: z.string() }),
        execute: async (): Promise<string> => {
          throw Object.assign(new Error('Forbidden'), { status: 403 });
        },
      },
    }),
  });
  assert.equal(blocked.outcome.status, 'BLOCKED');
  assert.equal(provider.remaining(), 1, 'the run stopped at the denial');

  console.log('openai agent: retried write applied once under one key, denial blocked the run');
} finally {
  server.close();
}
