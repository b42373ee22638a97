// An AI SDK agent as a user writes it, with only `@recourse/ai-sdk` and `ai` (plus the
// provider, zod, and `@recourse/testing` + msw for the scripted model) installed.
import assert from 'node:assert/strict';
import { createOpenAI } from '@ai-sdk/openai';
import {
  callContext,
  createRecovery,
  MemoryLedger,
  shellResources,
  urlResource,
} from '@recourse/ai-sdk';
import { createScriptedProvider, startProviderServer, text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, streamText, tool } from 'ai';
import { z } from 'zod';

const provider = createScriptedProvider();
const server = startProviderServer(provider);
const openai = createOpenAI({ baseURL: provider.baseURL, apiKey: 'test' });

try {
  // A refund whose response is lost after it landed: reconciled, applied once, and the
  // model's repeat of the same operation is answered from the ledger.
  provider.reset([
    toolCall('refund_payment', { paymentId: 'p-42', amount: 100 }),
    toolCall('refund_payment', { paymentId: 'p-42', amount: 100 }),
    text('refunded'),
  ]);
  const applied: string[] = [];
  const refunds = createRecovery({
    runId: 'consumer-refund',
    ledger: new MemoryLedger(),
    policies: {
      refund_payment: {
        sideEffects: true,
        reconcile: (_input, { idempotencyKey }) =>
          applied.includes(idempotencyKey)
            ? { happened: true, result: 'refunded' }
            : { happened: false },
      },
    },
  });
  const refund = await generateText({
    model: openai('gpt-4o'),
    prompt: 'Refund p-42',
    tools: refunds.tools({
      refund_payment: tool({
        inputSchema: z.object({ paymentId: z.string(), amount: z.number() }),
        execute: async (): Promise<string> => {
          applied.push(callContext().idempotencyKey);
          throw new DOMException('The operation timed out', 'TimeoutError');
        },
      }),
    }),
    stopWhen: [isStepCount(10), refunds.stopWhen],
    prepareStep: refunds.prepareStep,
  });
  assert.equal(refund.text, 'refunded');
  assert.equal(applied.length, 1, 'the refund was applied exactly once');
  assert.equal(refunds.outcome().status, 'COMPLETED');

  // streamText with a streaming tool: its progress reaches the stream as it is yielded.
  provider.reset([toolCall('export_report', { id: 'r-1' }), text('exported')]);
  const exports = createRecovery({
    runId: 'consumer-stream',
    policies: { export_report: { sideEffects: false } },
  });
  const stream = streamText({
    model: openai.chat('gpt-4o'),
    prompt: 'Export r-1',
    tools: exports.tools({
      export_report: tool({
        inputSchema: z.object({ id: z.string() }),
        async *execute({ id }) {
          yield { status: 'running' as const, id, done: 0.5 };
          yield { status: 'finished' as const, id, done: 1 };
        },
      }),
    }),
    stopWhen: [isStepCount(5), exports.stopWhen],
    prepareStep: exports.prepareStep,
  });
  const results: { preliminary: boolean; output: unknown }[] = [];
  for await (const part of stream.fullStream) {
    if (part.type === 'tool-result') {
      results.push({ preliminary: part.preliminary === true, output: part.output });
    }
  }
  assert.deepEqual(results, [
    { preliminary: true, output: { status: 'running', id: 'r-1', done: 0.5 } },
    { preliminary: true, output: { status: 'finished', id: 'r-1', done: 1 } },
    { preliminary: false, output: { status: 'finished', id: 'r-1', done: 1 } },
  ]);
  assert.equal(await stream.text, 'exported');

  // A 403, then the shell route to the same repository: blocked before it runs.
  provider.reset([
    toolCall('github_api', { repo: 'acme/secret' }),
    toolCall('shell', { command: 'git clone https://github.com/acme/secret' }),
    text('cloned'),
  ]);
  const executed: string[] = [];
  const github = createRecovery({
    runId: 'consumer-denial',
    policies: {
      github_api: {
        resource: (input: { repo: string }) => urlResource(`https://github.com/${input.repo}`),
      },
    },
    onDenial: 'continue',
  });
  await generateText({
    model: openai('gpt-4o'),
    prompt: 'Read acme/secret',
    tools: github.tools({
      github_api: tool({
        inputSchema: z.object({ repo: z.string() }),
        execute: async (): Promise<string> => {
          executed.push('github_api');
          throw Object.assign(new Error('Resource not accessible by integration'), { status: 403 });
        },
      }),
      shell: tool({
        inputSchema: z.object({ command: z.string() }),
        execute: async () => {
          executed.push('shell');
          return 'cloned';
        },
      }),
    }),
    stopWhen: [isStepCount(5), github.stopWhen],
    prepareStep: github.prepareStep,
  });
  assert.deepEqual(executed, ['github_api'], 'the shell bypass never ran');
  // The shell parser loads from the installed packages (the core's CommonJS loader in dist/).
  assert.deepEqual(shellResources('git clone https://github.com/ACME/Secret', { cwd: '/work' }), [
    'https://github.com/acme/secret',
    'file:///work/Secret',
  ]);
  assert.notEqual(github.outcome().status, 'COMPLETED');

  console.log('ai-sdk agent: refund applied once, streaming progress forwarded, bypass blocked');
} finally {
  server.close();
}
