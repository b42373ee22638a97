import OpenAI, { APIError, RateLimitError } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { httpError, streamError } from './http-error.js';
import { type ProviderServer, startProviderServer } from './provider-server.js';
import { text, toolCall, turn } from './script-steps.js';
import { createScriptedProvider } from './scripted-provider.js';

const provider = createScriptedProvider();
let running: ProviderServer;
let client: OpenAI;

beforeAll(() => {
  running = startProviderServer(provider);
  // After listen(): the client keeps the `fetch` it finds at construction.
  client = new OpenAI({ apiKey: 'test', baseURL: provider.baseURL, maxRetries: 0 });
});
afterAll(() => running.close());
beforeEach(() => provider.reset([]));

const tools: OpenAI.Chat.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'refund_payment',
      parameters: { type: 'object', properties: { paymentId: { type: 'string' } } },
    },
  },
];

describe('openai chat completions', () => {
  it('returns a scripted tool call, then the final text after the tool result', async () => {
    provider.reset([
      toolCall('refund_payment', { paymentId: 'p-42', amount: 100 }),
      text('Refunded.'),
    ]);
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
      { role: 'user', content: 'Refund p-42' },
    ];

    const first = await client.chat.completions.create({ model: 'gpt-4o', messages, tools });
    const choice = first.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    const call = choice.message.tool_calls![0]!;
    expect(call).toEqual({
      id: 'call_1',
      type: 'function',
      function: { name: 'refund_payment', arguments: '{"paymentId":"p-42","amount":100}' },
    });

    messages.push(choice.message, { role: 'tool', tool_call_id: call.id, content: 'refunded' });
    const second = await client.chat.completions.create({ model: 'gpt-4o', messages, tools });
    expect(second.choices[0]!.message.content).toBe('Refunded.');
    expect(second.choices[0]!.finish_reason).toBe('stop');
    expect(provider.toolResults()).toEqual([
      { api: 'chat', callId: 'call_1', output: 'refunded', requestIndex: 1 },
    ]);
    expect(provider.requests.map((r) => [r.api, r.stream])).toEqual([
      ['chat', false],
      ['chat', false],
    ]);
  });

  it('streams parallel tool calls whose arguments arrive in pieces', async () => {
    provider.reset([
      turn({
        text: 'Checking both.',
        toolCalls: [toolCall('a', { x: 1 }), toolCall('b', { y: 'two' }, { id: 'mine' })],
      }),
    ]);
    const stream = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'go' }],
      tools,
      stream: true,
      stream_options: { include_usage: true },
    });
    const calls: { id?: string; name?: string; arguments: string; pieces: number }[] = [];
    let content = '';
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      usage = chunk.usage ?? usage;
      const choice = chunk.choices[0];
      if (choice === undefined) continue;
      finish = choice.finish_reason ?? finish;
      content += choice.delta.content ?? '';
      for (const delta of choice.delta.tool_calls ?? []) {
        calls[delta.index] ??= { arguments: '', pieces: 0 };
        const call = calls[delta.index]!;
        if (delta.id) call.id = delta.id;
        if (delta.function?.name) call.name = delta.function.name;
        if (delta.function?.arguments) {
          call.arguments += delta.function.arguments;
          call.pieces++;
        }
      }
    }
    expect(content).toBe('Checking both.');
    expect(finish).toBe('tool_calls');
    expect(usage).toEqual({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
    expect(calls).toEqual([
      { id: 'call_1', name: 'a', arguments: '{"x":1}', pieces: 2 },
      { id: 'mine', name: 'b', arguments: '{"y":"two"}', pieces: 2 },
    ]);
    expect(provider.requests[0]!.stream).toBe(true);
  });

  it("accumulates through the SDK's own stream helper", async () => {
    provider.reset([toolCall('refund_payment', { paymentId: 'p-1' })]);
    const runner = client.chat.completions.stream({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'go' }],
      tools,
    });
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]!.message.tool_calls).toEqual([
      expect.objectContaining({
        id: 'call_1',
        function: expect.objectContaining({ arguments: '{"paymentId":"p-1"}' }),
      }),
    ]);
  });

  it('surfaces a 429 as RateLimitError with its retry-after header', async () => {
    provider.reset([httpError(429, { retryAfter: 1, retryAfterMs: 1500 })]);
    const error = await client.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitError);
    const rateLimit = error as RateLimitError;
    expect(rateLimit.status).toBe(429);
    expect(rateLimit.code).toBe('rate_limit_exceeded');
    expect(rateLimit.headers?.get('retry-after')).toBe('1');
    expect(rateLimit.headers?.get('retry-after-ms')).toBe('1500');
  });

  it('breaks a 200 stream with an error frame that the SDK throws as an APIError', async () => {
    provider.reset([streamError({ text: 'partial', code: 'server_error' })]);
    const stream = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    let content = '';
    const error = await (async () => {
      for await (const chunk of stream) content += chunk.choices[0]?.delta.content ?? '';
    })().catch((caught: unknown) => caught);
    expect(content).toBe('partial');
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBeUndefined();
    expect((error as APIError).code).toBe('server_error');
  });
});

describe('openai responses', () => {
  it('returns function calls whose call_id differs from the item id, and reads results back', async () => {
    provider.reset([[toolCall('a', { n: 1 }), toolCall('b', '{"broken":')], text('All done.')]);
    const first = await client.responses.create({ model: 'gpt-4o', input: 'go' });
    expect(first.status).toBe('completed');
    const calls = first.output.filter((item) => item.type === 'function_call');
    expect(calls.map((c) => [c.id, c.call_id, c.name, c.arguments])).toEqual([
      ['fc_1', 'call_1', 'a', '{"n":1}'],
      ['fc_2', 'call_2', 'b', '{"broken":'],
    ]);

    const second = await client.responses.create({
      model: 'gpt-4o',
      input: [
        { role: 'user', content: 'go' },
        ...calls,
        { type: 'function_call_output', call_id: 'call_1', output: 'one' },
        { type: 'function_call_output', call_id: 'call_2', output: 'bad json' },
      ],
    });
    expect(second.output_text).toBe('All done.');
    expect(provider.toolResults()).toEqual([
      { api: 'responses', callId: 'call_1', output: 'one', requestIndex: 1 },
      { api: 'responses', callId: 'call_2', output: 'bad json', requestIndex: 1 },
    ]);
  });

  it('streams the documented event sequence with item ids mapped to call ids', async () => {
    provider.reset([turn({ text: 'Let me look.', toolCalls: [toolCall('lookup', { q: 'x' })] })]);
    const stream = await client.responses.create({ model: 'gpt-4o', input: 'go', stream: true });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);

    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const deltas = events.filter((e) => e.type === 'response.function_call_arguments.delta');
    expect(deltas.map((e) => e.item_id)).toEqual(['fc_1', 'fc_1']);
    expect(deltas.map((e) => e.delta).join('')).toBe('{"q":"x"}');
    const done = events.at(-2);
    expect(done?.type === 'response.output_item.done' && done.item).toMatchObject({
      type: 'function_call',
      id: 'fc_1',
      call_id: 'call_1',
      status: 'completed',
    });
  });

  it("gives the SDK's stream helper a final response it can accumulate", async () => {
    provider.reset([turn({ text: 'Hi there.', toolCalls: [toolCall('a', { k: 'v' })] })]);
    const final = await client.responses.stream({ model: 'gpt-4o', input: 'go' }).finalResponse();
    expect(final.output_text).toBe('Hi there.');
    expect(final.output.at(-1)).toMatchObject({ type: 'function_call', arguments: '{"k":"v"}' });
  });

  it('answers a request past the end of the script with a clear 500', async () => {
    provider.reset([text('only one')]);
    await client.responses.create({ model: 'gpt-4o', input: 'one' });
    const error = await client.responses
      .create({ model: 'gpt-4o', input: 'two' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(500);
    expect((error as APIError).message).toContain('script exhausted');
    expect(provider.requests).toHaveLength(2);
  });
});
