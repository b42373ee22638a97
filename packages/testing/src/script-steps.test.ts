import { describe, expect, it } from 'vitest';
import { describeError, httpError } from './http-error.js';
import { text, toolCall, toTurn, turn } from './script-steps.js';

describe('script steps', () => {
  it('encodes object arguments and keeps raw strings as they are', () => {
    expect(toolCall('a', { b: [1, 'x'] }).arguments).toBe('{"b":[1,"x"]}');
    expect(toolCall('a', '{"b":').arguments).toBe('{"b":');
    expect(toolCall('a', undefined).arguments).toBe('{}');
    expect(toolCall('a', {}, { id: 'given' }).id).toBe('given');
  });

  it('folds an array of parts into one turn, text first, calls in order', () => {
    const usage = { inputTokens: 1, outputTokens: 2 };
    const folded = toTurn([
      toolCall('a', {}),
      text('Hello. '),
      turn({ text: 'Bye.', usage, toolCalls: [toolCall('b', {})] }),
    ]);
    expect(folded.text).toBe('Hello. Bye.');
    expect(folded.toolCalls.map((call) => call.name)).toEqual(['a', 'b']);
    expect(folded.usage).toEqual(usage);
    expect(toTurn([toolCall('a', {})]).text).toBeUndefined();
  });
});

describe('httpError', () => {
  it('builds retry headers, letting explicit headers win', () => {
    const error = httpError(429, {
      retryAfter: 2,
      retryAfterMs: 2500,
      headers: { 'Retry-After': '9', 'X-Request-Id': 'req_1' },
    });
    expect(error.headers).toEqual({
      'retry-after': '9',
      'retry-after-ms': '2500',
      'x-request-id': 'req_1',
    });
    expect(error.body).toEqual({ error: describeError(429) });
  });

  it('describes statuses the way OpenAI does, with overrides', () => {
    expect(describeError(429)).toMatchObject({ type: 'requests', code: 'rate_limit_exceeded' });
    expect(describeError(429, { code: 'insufficient_quota' })).toMatchObject({
      type: 'insufficient_quota',
      code: 'insufficient_quota',
    });
    expect(describeError(599)).toMatchObject({ type: 'server_error', code: null });
    expect(describeError(418)).toMatchObject({ type: 'invalid_request_error' });
    expect(describeError(401, { message: 'nope', param: 'key' })).toEqual({
      message: 'nope',
      type: 'invalid_request_error',
      code: 'invalid_api_key',
      param: 'key',
    });
  });

  it('uses a replacement body as given', () => {
    expect(httpError(500, { body: 'plain' }).body).toBe('plain');
    expect(httpError(400, { body: { detail: 'x' } }).body).toEqual({ detail: 'x' });
  });
});
