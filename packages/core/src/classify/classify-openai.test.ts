import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createFakeClock } from '../testing/fake-clock.js';
import { classifyFailure } from './classify-failure.js';
import { createClassifier } from './create-classifier.js';

const baseURL = 'https://api.openai.test/v1';
const server = setupServer();
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

// Created after `server.listen()`: the client captures `fetch` when it is constructed.
let client: OpenAI;
beforeAll(() => {
  client = new OpenAI({ apiKey: 'sk-test', baseURL, maxRetries: 0 });
});

function openAiBody(message: string, type: string, code: string | null) {
  return { error: { message, type, code, param: null } };
}

/** The error the real OpenAI client throws for this response. */
async function chatError(respond: () => Response): Promise<unknown> {
  server.use(http.post(`${baseURL}/chat/completions`, respond));
  try {
    await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hi' }],
    });
  } catch (error) {
    return error;
  }
  throw new Error('expected the request to fail');
}

/** The error thrown while iterating a 200 stream whose only frame is an error. */
async function streamError(frame: unknown): Promise<unknown> {
  server.use(
    http.post(`${baseURL}/chat/completions`, () => {
      const text = `data: ${JSON.stringify(frame)}\n\n`;
      const body = new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(text));
          controller.close();
        },
      });
      return new HttpResponse(body, { headers: { 'content-type': 'text/event-stream' } });
    }),
  );
  try {
    const stream = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    for await (const _chunk of stream) {
      // drain
    }
  } catch (error) {
    return error;
  }
  throw new Error('expected the stream to fail');
}

type Row = readonly [
  status: number,
  type: string,
  code: string | null,
  noHint: string,
  withSideEffects: string,
  stableCode: string,
];

// 407 is absent: fetch turns a 407 response into a network error (Fetch standard), so
// the client reports APIConnectionError("Connection error.") and no status.
// status, OpenAI error type/code, class without hint, class with sideEffects, code
const rows: readonly Row[] = [
  [400, 'invalid_request_error', null, 'VALIDATION', 'VALIDATION', 'INVALID_INPUT'],
  [
    401,
    'invalid_request_error',
    'invalid_api_key',
    'AUTHORIZATION',
    'AUTHORIZATION',
    'NOT_AUTHORIZED',
  ],
  [402, 'invalid_request_error', null, 'PERMANENT', 'PERMANENT', 'PAYMENT_REQUIRED'],
  [
    403,
    'invalid_request_error',
    'unsupported_country_region_territory',
    'AUTHORIZATION',
    'AUTHORIZATION',
    'FORBIDDEN',
  ],
  [404, 'invalid_request_error', 'model_not_found', 'PERMANENT', 'PERMANENT', 'NOT_FOUND'],
  [405, 'invalid_request_error', null, 'PERMANENT', 'PERMANENT', 'NOT_SUPPORTED'],
  [408, 'timeout', null, 'TRANSIENT', 'UNKNOWN_OUTCOME', 'TIMEOUT'],
  [409, 'invalid_request_error', null, 'STALE_STATE', 'STALE_STATE', 'CONFLICT'],
  [410, 'invalid_request_error', null, 'PERMANENT', 'PERMANENT', 'GONE'],
  [412, 'invalid_request_error', null, 'STALE_STATE', 'STALE_STATE', 'PRECONDITION_FAILED'],
  [422, 'invalid_request_error', null, 'VALIDATION', 'VALIDATION', 'INVALID_INPUT'],
  [428, 'invalid_request_error', null, 'STALE_STATE', 'STALE_STATE', 'PRECONDITION_FAILED'],
  [429, 'requests', 'rate_limit_exceeded', 'TRANSIENT', 'TRANSIENT', 'RATE_LIMITED'],
  [429, 'insufficient_quota', 'insufficient_quota', 'PERMANENT', 'PERMANENT', 'QUOTA_EXCEEDED'],
  [500, 'server_error', null, 'TRANSIENT', 'UNKNOWN_OUTCOME', 'SERVER_ERROR'],
  [501, 'server_error', null, 'PERMANENT', 'PERMANENT', 'NOT_SUPPORTED'],
  [502, 'server_error', null, 'TRANSIENT', 'UNKNOWN_OUTCOME', 'SERVER_ERROR'],
  [503, 'server_error', null, 'TRANSIENT', 'TRANSIENT', 'SERVICE_UNAVAILABLE'],
  [504, 'server_error', null, 'TRANSIENT', 'UNKNOWN_OUTCOME', 'TIMEOUT'],
];

describe('classifyFailure on openai@7 errors', () => {
  it.each(rows)(
    'HTTP %i (%s/%s)',
    async (status, type, code, noHint, withSideEffects, stableCode) => {
      const error = await chatError(() =>
        HttpResponse.json(openAiBody(`failed with ${status}`, type, code), { status }),
      );
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect(classifyFailure(error)).toMatchObject({
        failureClass: noHint,
        code: stableCode,
        status,
      });
      expect(classifyFailure(error, { sideEffects: false }).failureClass).toBe(noHint);
      expect(classifyFailure(error, { sideEffects: true }).failureClass).toBe(withSideEffects);
    },
  );

  it("names the field of a 400 from the error's param", async () => {
    const error = await chatError(() =>
      HttpResponse.json(
        {
          error: {
            message: "Invalid 'messages[0].content': string too long.",
            type: 'invalid_request_error',
            param: 'messages[0].content',
            code: 'string_above_max_length',
          },
        },
        { status: 400 },
      ),
    );
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(classifyFailure(error)).toMatchObject({
      failureClass: 'VALIDATION',
      field: 'messages[0].content',
    });
  });

  it('takes retryAfterMs of a 429 from retry-after', async () => {
    const error = await chatError(() =>
      HttpResponse.json(openAiBody('Rate limit reached', 'requests', 'rate_limit_exceeded'), {
        status: 429,
        headers: { 'retry-after': '2', 'x-ratelimit-reset-requests': '6m0s' },
      }),
    );
    expect(classifyFailure(error)).toMatchObject({ code: 'RATE_LIMITED', retryAfterMs: 2000 });
  });

  it('takes retryAfterMs from retry-after-ms first, and from OpenAI reset headers', async () => {
    const withMs = await chatError(() =>
      HttpResponse.json(openAiBody('slow down', 'requests', 'rate_limit_exceeded'), {
        status: 429,
        headers: { 'retry-after-ms': '250', 'retry-after': '1' },
      }),
    );
    expect(classifyFailure(withMs).retryAfterMs).toBe(250);
    const withReset = await chatError(() =>
      HttpResponse.json(openAiBody('slow down', 'tokens', 'rate_limit_exceeded'), {
        status: 429,
        headers: { 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-reset-tokens': '1m30s' },
      }),
    );
    expect(classifyFailure(withReset, { sideEffects: true })).toMatchObject({
      failureClass: 'TRANSIENT',
      retryAfterMs: 90_000,
    });
  });

  it('treats a 403 with x-ratelimit-remaining: 0 as a rate limit, waiting until the reset', async () => {
    const clock = createFakeClock(1_770_000_000_000);
    const error = await chatError(() =>
      HttpResponse.json(
        { message: 'API rate limit exceeded for user ID 1.' },
        {
          status: 403,
          headers: {
            'x-ratelimit-remaining': '0',
            'x-ratelimit-reset': String(1_770_000_000 + 60),
          },
        },
      ),
    );
    expect(createClassifier({ clock })(error)).toMatchObject({
      failureClass: 'TRANSIENT',
      code: 'RATE_LIMITED',
      status: 403,
      retryAfterMs: 60_000,
    });
  });

  it('treats a 403 "secondary rate limit" body as a rate limit', async () => {
    const error = await chatError(() =>
      HttpResponse.json(
        { message: 'You have exceeded a secondary rate limit. Please wait a few minutes.' },
        { status: 403, headers: { 'retry-after': '60' } },
      ),
    );
    expect(classifyFailure(error)).toMatchObject({ code: 'RATE_LIMITED', retryAfterMs: 60_000 });
  });

  it('gives no retryAfterMs to non-transient failures', async () => {
    const error = await chatError(() =>
      HttpResponse.json(openAiBody('nope', 'invalid_request_error', null), {
        status: 404,
        headers: { 'retry-after': '5' },
      }),
    );
    expect(classifyFailure(error).retryAfterMs).toBeUndefined();
  });

  it('never shows the key a 401 body echoes', async () => {
    const key = 'sk-proj-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe';
    const error = await chatError(() =>
      HttpResponse.json(
        openAiBody(
          `Incorrect API key provided: ${key}. You can find your API key at https://platform.openai.com.`,
          'invalid_request_error',
          'invalid_api_key',
        ),
        { status: 401 },
      ),
    );
    expect(String((error as Error).message)).toContain(key);
    const result = classifyFailure(error);
    expect(result.failureClass).toBe('AUTHORIZATION');
    expect(result.message).toContain('Incorrect API key provided');
    expect(result.message).not.toContain('Zx9Yw8');
    expect(JSON.stringify(result)).not.toContain('Zx9Yw8');
  });

  it('a network error with no errno (msw HttpResponse.error) is NETWORK_ERROR', async () => {
    const error = await chatError(() => HttpResponse.error());
    expect(error).toBeInstanceOf(OpenAI.APIConnectionError);
    expect(classifyFailure(error)).toMatchObject({
      failureClass: 'TRANSIENT',
      code: 'NETWORK_ERROR',
    });
    expect(classifyFailure(error, { sideEffects: true }).failureClass).toBe('UNKNOWN_OUTCOME');
  });

  describe('error frames inside a 200 stream (APIError without status)', () => {
    it.each([
      ['server_error', null, 'TRANSIENT', 'UNKNOWN_OUTCOME', 'SERVER_ERROR'],
      ['requests', 'rate_limit_exceeded', 'TRANSIENT', 'TRANSIENT', 'RATE_LIMITED'],
      ['insufficient_quota', 'insufficient_quota', 'PERMANENT', 'PERMANENT', 'QUOTA_EXCEEDED'],
      [
        'invalid_request_error',
        'context_length_exceeded',
        'VALIDATION',
        'VALIDATION',
        'INVALID_INPUT',
      ],
    ])('type %s, code %s', async (type, code, noHint, withSideEffects, stableCode) => {
      const error = await streamError(openAiBody('stream failed', type, code));
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect((error as InstanceType<typeof OpenAI.APIError>).status).toBeUndefined();
      const result = classifyFailure(error);
      expect(result).toMatchObject({ failureClass: noHint, code: stableCode });
      expect(result.status).toBeUndefined();
      expect(classifyFailure(error, { sideEffects: true }).failureClass).toBe(withSideEffects);
    });
  });
});
