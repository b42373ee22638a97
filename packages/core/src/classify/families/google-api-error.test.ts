import { describe, expect, it } from 'vitest';
import { classifyFailure } from '../classify-failure.js';
import { classesOf } from './classes-of.test-harness.js';

function bodyText(code: number, status: string, details: unknown[] = []) {
  return JSON.stringify({ error: { code, message: 'google says no', status, details } });
}

describe('Google API JSON errors (shape)', () => {
  it.each([
    [400, 'INVALID_ARGUMENT', 'VALIDATION', 'VALIDATION', 'INVALID_INPUT'],
    [400, 'FAILED_PRECONDITION', 'STALE_STATE', 'STALE_STATE', 'PRECONDITION_FAILED'],
    [403, 'PERMISSION_DENIED', 'AUTHORIZATION', 'AUTHORIZATION', 'FORBIDDEN'],
    [404, 'NOT_FOUND', 'PERMANENT', 'PERMANENT', 'NOT_FOUND'],
    [409, 'ABORTED', 'STALE_STATE', 'STALE_STATE', 'CONFLICT'],
    [429, 'RESOURCE_EXHAUSTED', 'TRANSIENT', 'TRANSIENT', 'RATE_LIMITED'],
    [500, 'INTERNAL', 'TRANSIENT', 'UNKNOWN_OUTCOME', 'SERVER_ERROR'],
    [503, 'UNAVAILABLE', 'TRANSIENT', 'TRANSIENT', 'SERVICE_UNAVAILABLE'],
    [504, 'DEADLINE_EXCEEDED', 'TRANSIENT', 'UNKNOWN_OUTCOME', 'TIMEOUT'],
  ])('%i %s, as message text and as a body object', (status, name, noHint, withHint, code) => {
    const asText = Object.assign(new Error(bodyText(status, name)), { status });
    const asObject = Object.assign(new Error('request failed'), {
      statusCode: status,
      data: { error: { code: status, message: 'no', status: name } },
    });
    expect(classesOf(asText)).toEqual([noHint, withHint, code]);
    expect(classesOf(asObject)).toEqual([noHint, withHint, code]);
  });

  it('a bad API key (400 INVALID_ARGUMENT, reason API_KEY_INVALID) is AUTHORIZATION', () => {
    const details = [
      { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' },
    ];
    const asText = Object.assign(new Error(bodyText(400, 'INVALID_ARGUMENT', details)), {
      status: 400,
    });
    const asObject = {
      status: 400,
      error: { error: { code: 400, status: 'INVALID_ARGUMENT', details } },
    };
    expect(classesOf(asText)).toEqual(['AUTHORIZATION', 'AUTHORIZATION', 'NOT_AUTHORIZED']);
    expect(classesOf(asObject)).toEqual(['AUTHORIZATION', 'AUTHORIZATION', 'NOT_AUTHORIZED']);
  });

  it('RetryInfo gives retryAfterMs, in text and in a body object', () => {
    const retry = [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '17s' }];
    const asText = Object.assign(new Error(bodyText(429, 'RESOURCE_EXHAUSTED', retry)), {
      status: 429,
    });
    expect(classifyFailure(asText).retryAfterMs).toBe(17_000);
    const asObject = {
      statusCode: 429,
      data: { error: { code: 429, status: 'RESOURCE_EXHAUSTED', details: retry } },
    };
    expect(classifyFailure(asObject).retryAfterMs).toBe(17_000);
    // The AI SDK's APICallError keeps the body as text.
    const apiCall = {
      statusCode: 429,
      responseBody: bodyText(429, 'RESOURCE_EXHAUSTED', [{ retryDelay: '2.5s' }]),
    };
    expect(classifyFailure(apiCall)).toMatchObject({ code: 'RATE_LIMITED', retryAfterMs: 2500 });
  });

  it('a `status` word without a numeric code is not a google.rpc status', () => {
    const error = Object.assign(new Error('x'), { status: 'NOT_FOUND' });
    expect(classifyFailure(error).source).not.toBe('builtin:google');
  });
});
