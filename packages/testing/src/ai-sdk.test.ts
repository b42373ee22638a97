import { createOpenAI } from '@ai-sdk/openai';
import { APICallError, generateText, isStepCount, streamText, tool } from 'ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { httpError } from './http-error.js';
import type { ProviderRequest } from './provider-request.js';
import { type ProviderServer, startProviderServer } from './provider-server.js';
import { text, toolCall } from './script-steps.js';
import { createScriptedProvider } from './scripted-provider.js';

const provider = createScriptedProvider();
const openai = createOpenAI({ baseURL: provider.baseURL, apiKey: 'test' });
let running: ProviderServer;

beforeAll(() => {
  running = startProviderServer(provider);
});
afterAll(() => running.close());
beforeEach(() => provider.reset([]));

function createRefundTool(executed: unknown[]) {
  return tool({
    description: 'Refund a payment',
    inputSchema: z.object({ paymentId: z.string(), amount: z.number() }),
    execute: async (input) => {
      executed.push(input);
      return { refunded: input.paymentId, secretRef: 'internal-only' };
    },
  });
}

// Each model flavour, with the API its requests must reach.
const models = [
  { label: 'chat completions', model: () => openai.chat('gpt-4o'), api: 'chat' },
  { label: 'responses (default)', model: () => openai('gpt-4o'), api: 'responses' },
  { label: 'responses (explicit)', model: () => openai.responses('gpt-4o'), api: 'responses' },
] as const;

const script = () => [
  toolCall('refund_payment', { paymentId: 'p-42', amount: 100 }),
  (request: ProviderRequest) =>
    text(`Done: ${request.toolResults.map((result) => result.output).join(', ')}`),
];

describe.each(models)('ai generateText over $label', ({ model, api }) => {
  it('executes the scripted call and sends its result back', async () => {
    provider.reset(script());
    const executed: unknown[] = [];
    const result = await generateText({
      model: model(),
      prompt: 'Refund p-42',
      tools: { refund_payment: createRefundTool(executed) },
      stopWhen: isStepCount(3),
    });

    expect(executed).toEqual([{ paymentId: 'p-42', amount: 100 }]);
    expect(result.steps).toHaveLength(2);
    expect(result.text).toBe('Done: {"refunded":"p-42","secretRef":"internal-only"}');
    expect(provider.requests.map((request) => request.api)).toEqual([api, api]);
    const [result1] = provider.toolResults();
    expect(result1).toMatchObject({ api, callId: 'call_1', requestIndex: 1 });
    expect(JSON.parse(result1!.output)).toEqual({ refunded: 'p-42', secretRef: 'internal-only' });
    // The prompt went out; nothing else the test did not intend did.
    expect(provider.requests[0]!.rawBody).toContain('Refund p-42');
    expect(provider.requests[0]!.rawBody).not.toContain('internal-only');
  });
});

describe.each(models)('ai streamText over $label', ({ model, api }) => {
  it('accumulates the streamed call, executes it and finishes with text', async () => {
    provider.reset(script());
    const executed: unknown[] = [];
    const result = streamText({
      model: model(),
      prompt: 'Refund p-42',
      tools: { refund_payment: createRefundTool(executed) },
      stopWhen: isStepCount(3),
    });

    expect(await result.text).toBe('Done: {"refunded":"p-42","secretRef":"internal-only"}');
    expect(executed).toEqual([{ paymentId: 'p-42', amount: 100 }]);
    expect(provider.requests.map((request) => [request.api, request.stream])).toEqual([
      [api, true],
      [api, true],
    ]);
    expect(provider.toolResults().map((result) => result.callId)).toEqual(['call_1']);
  });
});

describe('ai and model call failures', () => {
  it('surfaces a scripted 503 as APICallError, then recovers on the next entry', async () => {
    provider.reset([httpError(503, { retryAfter: 0 }), text('back')]);
    const result = await generateText({
      model: openai.chat('gpt-4o'),
      prompt: 'hi',
      maxRetries: 1,
    });
    expect(result.text).toBe('back');
    expect(provider.requests).toHaveLength(2);

    provider.reset([httpError(429, { retryAfter: 7 })]);
    const error = await generateText({
      model: openai('gpt-4o'),
      prompt: 'hi',
      maxRetries: 0,
    }).catch((caught: unknown) => caught);
    expect(APICallError.isInstance(error)).toBe(true);
    const callError = error as APICallError;
    expect(callError.statusCode).toBe(429);
    expect(callError.responseHeaders?.['retry-after']).toBe('7');
  });

  it('feeds invalid JSON arguments to the SDK as an invalid tool call, not a crash', async () => {
    provider.reset([toolCall('refund_payment', '{"paymentId":'), text('gave up')]);
    const executed: unknown[] = [];
    const result = await generateText({
      model: openai.chat('gpt-4o'),
      prompt: 'Refund',
      tools: { refund_payment: createRefundTool(executed) },
      stopWhen: isStepCount(3),
    });
    expect(executed).toEqual([]);
    const first = result.steps[0]!.content;
    expect(first.some((part) => part.type === 'tool-error')).toBe(true);
    expect(provider.toolResults()).toHaveLength(1);
  });
});
