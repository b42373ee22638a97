import OpenAI, { APIError, InternalServerError, RateLimitError } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { httpError, streamError } from './http-error.js';
import { type ProviderServer, startProviderServer } from './provider-server.js';
import { text, toolCall } from './script-steps.js';
import { createScriptedProvider } from './scripted-provider.js';

const provider = createScriptedProvider({ baseURL: 'https://llm.example.test/v1/' });
let running: ProviderServer;
let client: OpenAI;

beforeAll(() => {
  running = startProviderServer(provider);
  client = new OpenAI({ apiKey: 'test', baseURL: provider.baseURL, maxRetries: 0 });
});
afterAll(() => running.close());
beforeEach(() => provider.reset([]));

const post = (path: string, body: unknown) =>
  fetch(`${provider.baseURL}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('createScriptedProvider', () => {
  it('strips a trailing slash from the base URL', () => {
    expect(provider.baseURL).toBe('https://llm.example.test/v1');
  });

  it('fails unhandled requests loudly instead of sending them to the network', async () => {
    const elsewhere = await fetch('https://api.openai.com/v1/models').catch((e: unknown) => e);
    const unknownPath = await post('/embeddings', {}).catch((e: unknown) => e);
    for (const error of [elsewhere, unknownPath]) {
      // msw's refusal, not a DNS failure: the request never left the process.
      expect(error).toBeInstanceOf(TypeError);
      expect(String((error as TypeError).cause)).toContain('[MSW] Cannot bypass a request');
    }
    expect(provider.requests).toHaveLength(0);
  });

  it('reports each tool result once although the chat history repeats it', async () => {
    provider.reset([toolCall('a', {}), toolCall('b', {}), text('done')]);
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: 'go' }];
    for (const output of ['first', 'second']) {
      const message = (await client.chat.completions.create({ model: 'm', messages })).choices[0]!
        .message;
      const id = message.tool_calls![0]!.id;
      messages.push(message, {
        role: 'tool',
        tool_call_id: id,
        content: [{ type: 'text', text: output }],
      });
    }
    await client.chat.completions.create({ model: 'm', messages });

    expect(provider.requests[2]!.toolResults.map((r) => r.callId)).toEqual(['call_1', 'call_2']);
    expect(provider.toolResults()).toEqual([
      { api: 'chat', callId: 'call_1', output: 'first', requestIndex: 1 },
      { api: 'chat', callId: 'call_2', output: 'second', requestIndex: 2 },
    ]);
  });

  it('repeats the last entry when asked to, minting fresh ids', async () => {
    const repeating = createScriptedProvider({
      baseURL: provider.baseURL,
      script: [toolCall('poll', {})],
      onExhausted: 'repeat-last',
    });
    running.server.use(...repeating.handlers);
    try {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const response = await client.chat.completions.create({ model: 'm', messages: [] });
        ids.push(response.choices[0]!.message.tool_calls![0]!.id);
      }
      expect(ids).toEqual(['call_1', 'call_2', 'call_3']);
      expect(repeating.remaining()).toBe(0);
    } finally {
      running.server.resetHandlers();
    }
  });

  it('gives concurrent requests script entries in arrival order', async () => {
    provider.reset([text('one'), text('two'), text('three')]);
    const answers = await Promise.all(
      ['a', 'b', 'c'].map((input) => client.responses.create({ model: 'm', input })),
    );
    expect(answers.map((answer) => answer.output_text)).toEqual(['one', 'two', 'three']);
    expect(provider.requests.map((request) => [request.index, request.body.input])).toEqual([
      [0, 'a'],
      [1, 'b'],
      [2, 'c'],
    ]);
  });

  it('turns a throwing script function into a 500 that names it', async () => {
    provider.reset([
      () => {
        throw new Error('no tool result yet');
      },
    ]);
    const error = await client.responses.create({ model: 'm', input: 'x' }).catch((e) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as APIError).message).toContain('no tool result yet');
    expect((error as APIError).code).toBe('script_error');
  });

  it('restarts ids and the log on reset, so runs are byte-for-byte repeatable', async () => {
    const script = [[toolCall('a', { x: 1 }), toolCall('b', { y: 2 })], text('ok')];
    const run = async () => {
      provider.reset(script);
      const bodies: string[] = [];
      for (const stream of [false, true]) {
        const response = await post('/responses', { model: 'm', input: 'go', stream });
        bodies.push(await response.text());
      }
      return bodies;
    };
    const first = await run();
    expect(await run()).toEqual(first);
    expect(first[0]).toContain('"call_id":"call_1"');
  });

  it('logs lower-case headers and the raw body of every request', async () => {
    provider.reset([text('hi')]);
    await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'the secret is hunter2' }],
    });
    const [request] = provider.requests;
    expect(request).toMatchObject({ api: 'chat', stream: false, index: 0 });
    expect(request!.url).toBe('https://llm.example.test/v1/chat/completions');
    expect(request!.headers.authorization).toBe('Bearer test');
    expect(request!.body.model).toBe('gpt-4o');
    expect(request!.rawBody).toContain('hunter2');
  });
});

describe('scripted failures', () => {
  it('sends custom status, headers and body', async () => {
    provider.reset([
      httpError(429, { code: 'insufficient_quota', headers: { 'X-RateLimit-Remaining': '0' } }),
      httpError(502, { body: '<html>bad gateway</html>' }),
    ]);
    const quota = await client.responses.create({ model: 'm', input: 'x' }).catch((e) => e);
    expect(quota).toBeInstanceOf(RateLimitError);
    expect((quota as RateLimitError).code).toBe('insufficient_quota');
    expect((quota as RateLimitError).type).toBe('insufficient_quota');
    expect((quota as RateLimitError).headers?.get('x-ratelimit-remaining')).toBe('0');

    const gateway = await post('/responses', { model: 'm' });
    expect(gateway.status).toBe(502);
    expect(await gateway.text()).toBe('<html>bad gateway</html>');
  });

  it('breaks a responses stream with an error event', async () => {
    provider.reset([streamError({ text: 'Hel', code: 'server_error', message: 'boom' })]);
    const stream = await client.responses.create({ model: 'm', input: 'x', stream: true });
    const seen: string[] = [];
    const error = await (async () => {
      for await (const event of stream) seen.push(event.type);
    })().catch((e: unknown) => e);
    expect(seen).toContain('response.output_text.delta');
    expect(seen).not.toContain('response.completed');
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).message).toContain('boom');
  });

  it('answers a stream error scripted for a plain request with a 500', async () => {
    provider.reset([streamError({ message: 'boom' })]);
    const response = await post('/chat/completions', { model: 'm', messages: [] });
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({
      error: { message: 'boom', type: 'server_error' },
    });
  });
});
