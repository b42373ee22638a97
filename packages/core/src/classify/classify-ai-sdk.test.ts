import { createOpenAI } from '@ai-sdk/openai';
import { generateText, tool } from 'ai';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { classifyFailure } from './classify-failure.js';

const baseURL = 'https://api.openai.test/v1';
const server = setupServer();
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const provider = createOpenAI({ apiKey: 'sk-test', baseURL });

function errorBody(message: string, type: string, code: string | null) {
  return { error: { message, type, code, param: null } };
}

async function callError(respond: () => Response, maxRetries = 0): Promise<unknown> {
  server.use(http.post(`${baseURL}/chat/completions`, respond));
  try {
    await generateText({ model: provider.chat('gpt-4o'), prompt: 'hi', maxRetries });
  } catch (error) {
    return error;
  }
  throw new Error('expected generateText to fail');
}

/**
 * Runs one step in which the model calls `name` with `args`. ai@7 keeps the original
 * error object on the `tool-call` part marked `invalid: true`; the `tool-error` part only
 * carries its message string.
 */
async function invalidToolCall(name: string, args: string) {
  server.use(
    http.post(`${baseURL}/chat/completions`, () =>
      HttpResponse.json({
        choices: [
          {
            index: 0,
            finish_reason: 'tool_calls',
            message: {
              role: 'assistant',
              tool_calls: [{ id: 'call_1', type: 'function', function: { name, arguments: args } }],
            },
          },
        ],
      }),
    ),
  );
  let executed = false;
  const result = await generateText({
    model: provider.chat('gpt-4o'),
    prompt: 'weather?',
    maxRetries: 0,
    tools: {
      weather: tool({
        inputSchema: z.object({ city: z.string(), days: z.number().int().min(1) }),
        execute: async () => {
          executed = true;
          return 'sunny';
        },
      }),
    },
  });
  expect(executed).toBe(false);
  const content = result.steps[0]?.content ?? [];
  const call = content.find((part) => part.type === 'tool-call' && part.invalid === true);
  const failure = content.find((part) => part.type === 'tool-error');
  expect(call).toBeDefined();
  expect(failure).toBeDefined();
  return {
    error: (call as { error?: unknown }).error,
    text: (failure as { error: unknown }).error,
  };
}

describe('classifyFailure on ai@7 + @ai-sdk/openai@4 errors', () => {
  it('reads statusCode and responseHeaders of an APICallError 429', async () => {
    const error = await callError(() =>
      HttpResponse.json(errorBody('Rate limit reached', 'requests', 'rate_limit_exceeded'), {
        status: 429,
        headers: { 'retry-after': '3' },
      }),
    );
    expect((error as Error).name).toBe('AI_APICallError');
    expect(classifyFailure(error)).toMatchObject({
      failureClass: 'TRANSIENT',
      code: 'RATE_LIMITED',
      status: 429,
      retryAfterMs: 3000,
      source: 'builtin:rate-limit',
    });
  });

  it('sees insufficient_quota in the parsed body of a 429', async () => {
    const error = await callError(() =>
      HttpResponse.json(
        errorBody('You exceeded your current quota', 'insufficient_quota', 'insufficient_quota'),
        {
          status: 429,
        },
      ),
    );
    expect(classifyFailure(error)).toMatchObject({
      failureClass: 'PERMANENT',
      code: 'QUOTA_EXCEEDED',
    });
  });

  it.each([
    [400, 'VALIDATION', 'VALIDATION', 'INVALID_INPUT'],
    [401, 'AUTHORIZATION', 'AUTHORIZATION', 'NOT_AUTHORIZED'],
    [404, 'PERMANENT', 'PERMANENT', 'NOT_FOUND'],
    [409, 'STALE_STATE', 'STALE_STATE', 'CONFLICT'],
    [500, 'TRANSIENT', 'UNKNOWN_OUTCOME', 'SERVER_ERROR'],
    [504, 'TRANSIENT', 'UNKNOWN_OUTCOME', 'TIMEOUT'],
  ])('HTTP %i', async (status, noHint, withSideEffects, code) => {
    const error = await callError(() =>
      HttpResponse.json(errorBody(`status ${status}`, 'x', null), { status }),
    );
    expect(classifyFailure(error)).toMatchObject({ failureClass: noHint, code, status });
    expect(classifyFailure(error, { sideEffects: true }).failureClass).toBe(withSideEffects);
  });

  it('looks through a RetryError to its last attempt', async () => {
    const error = await callError(
      () =>
        HttpResponse.json(errorBody('overloaded', 'server_error', null), {
          status: 503,
          headers: { 'retry-after-ms': '1' },
        }),
      1,
    );
    expect((error as Error).name).toBe('AI_RetryError');
    expect(classifyFailure(error, { sideEffects: true })).toMatchObject({
      failureClass: 'TRANSIENT',
      code: 'SERVICE_UNAVAILABLE',
      status: 503,
      retryAfterMs: 1,
    });
  });

  it('classifies invalid tool input as VALIDATION and names the field', async () => {
    const { error, text } = await invalidToolCall(
      'weather',
      JSON.stringify({ city: 'Oslo', days: 0 }),
    );
    expect((error as Error).name).toBe('AI_InvalidToolInputError');
    expect(classifyFailure(error)).toMatchObject({
      failureClass: 'VALIDATION',
      code: 'INVALID_INPUT',
      field: 'days',
    });
    // The tool-error part's string alone is still recognised, by its message.
    expect(typeof text).toBe('string');
    expect(classifyFailure(text)).toMatchObject({
      failureClass: 'VALIDATION',
      code: 'INVALID_INPUT',
    });
  });

  it('classifies a call to an unknown tool as VALIDATION / NO_SUCH_TOOL', async () => {
    const { error, text } = await invalidToolCall('forecast', '{}');
    expect((error as Error).name).toBe('AI_NoSuchToolError');
    expect(classifyFailure(text).code).toBe('NO_SUCH_TOOL');
    expect(classifyFailure(error, { sideEffects: true })).toMatchObject({
      failureClass: 'VALIDATION',
      code: 'NO_SUCH_TOOL',
    });
  });

  it('classifies unparseable tool arguments as VALIDATION / INVALID_JSON', async () => {
    const { error } = await invalidToolCall('weather', '{bad');
    expect(classifyFailure(error)).toMatchObject({
      failureClass: 'VALIDATION',
      code: 'INVALID_JSON',
    });
  });
});
