import { GoogleGenAI } from '@google/genai';
import { classifyFailure } from '@recourse/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classesOf, closedPort, type Fixture, rejection, startFixture } from './support.js';

let fixture: Fixture;
beforeAll(async () => {
  fixture = await startFixture();
});
afterAll(() => fixture.close());

const generate = (baseUrl: string) =>
  new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl } }).models.generateContent({
    model: 'gemini-2.5-flash',
    contents: 'hi',
  });

function googleBody(code: number, status: string, details: object[] = []) {
  return { error: { code, message: `${status} happened`, status, details } };
}

describe('@google/genai ApiError', () => {
  it.each([
    [400, 'INVALID_ARGUMENT', 'VALIDATION', 'VALIDATION', 'INVALID_INPUT'],
    [400, 'FAILED_PRECONDITION', 'STALE_STATE', 'STALE_STATE', 'PRECONDITION_FAILED'],
    [403, 'PERMISSION_DENIED', 'AUTHORIZATION', 'AUTHORIZATION', 'FORBIDDEN'],
    [404, 'NOT_FOUND', 'PERMANENT', 'PERMANENT', 'NOT_FOUND'],
    [429, 'RESOURCE_EXHAUSTED', 'TRANSIENT', 'TRANSIENT', 'RATE_LIMITED'],
    [500, 'INTERNAL', 'TRANSIENT', 'UNKNOWN_OUTCOME', 'SERVER_ERROR'],
    [503, 'UNAVAILABLE', 'TRANSIENT', 'TRANSIENT', 'SERVICE_UNAVAILABLE'],
    [504, 'DEADLINE_EXCEEDED', 'TRANSIENT', 'UNKNOWN_OUTCOME', 'TIMEOUT'],
  ])('%i %s', async (status, name, noHint, withHint, code) => {
    fixture.reply({ status, body: googleBody(status, name) });
    const error = await rejection(() => generate(fixture.url));
    expect(error).toMatchObject({ name: 'ApiError', status });
    expect(classesOf(error)).toEqual([noHint, withHint, code]);
  });

  it('429 RESOURCE_EXHAUSTED waits for RetryInfo.retryDelay', async () => {
    fixture.reply({
      status: 429,
      body: googleBody(429, 'RESOURCE_EXHAUSTED', [
        {
          '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
          violations: [{ quotaId: 'PerMinute' }],
        },
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '17s' },
      ]),
    });
    const error = await rejection(() => generate(fixture.url));
    expect(classifyFailure(error, { sideEffects: true })).toMatchObject({
      failureClass: 'TRANSIENT',
      code: 'RATE_LIMITED',
      retryAfterMs: 17_000,
    });
  });

  it('a bad API key (400 INVALID_ARGUMENT with reason API_KEY_INVALID) is AUTHORIZATION', async () => {
    fixture.reply({
      status: 400,
      body: googleBody(400, 'INVALID_ARGUMENT', [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'API_KEY_INVALID',
          domain: 'googleapis.com',
        },
      ]),
    });
    const error = await rejection(() => generate(fixture.url));
    expect(classesOf(error)).toEqual(['AUTHORIZATION', 'AUTHORIZATION', 'NOT_AUTHORIZED']);
  });

  it('a refused connection is TRANSIENT', async () => {
    const error = await rejection(async () => generate(`http://127.0.0.1:${await closedPort()}`));
    expect(classesOf(error)).toEqual(['TRANSIENT', 'TRANSIENT', 'CONNECTION_REFUSED']);
  });
});
