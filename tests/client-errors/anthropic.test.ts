import Anthropic from '@anthropic-ai/sdk';
import { classifyFailure, createClassifier } from '@recourse/core';
import { createFakeClock } from '@recourse/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classesOf, closedPort, type Fixture, rejection, startFixture } from './support.js';

let fixture: Fixture;
beforeAll(async () => {
  fixture = await startFixture();
});
afterAll(() => fixture.close());

const client = (baseURL: string, timeout?: number) =>
  new Anthropic({ apiKey: 'sk-ant-test', baseURL, maxRetries: 0, ...(timeout ? { timeout } : {}) });
const ask = (anthropic: Anthropic) =>
  anthropic.messages.create({
    model: 'claude-sonnet-4-5',
    max_tokens: 16,
    messages: [{ role: 'user', content: 'hi' }],
  });

function anthropicBody(type: string) {
  return { type: 'error', error: { type, message: `${type} happened` } };
}

describe('@anthropic-ai/sdk errors', () => {
  it.each([
    [529, 'overloaded_error', 'TRANSIENT', 'TRANSIENT', 'SERVICE_UNAVAILABLE'],
    [429, 'rate_limit_error', 'TRANSIENT', 'TRANSIENT', 'RATE_LIMITED'],
    [400, 'invalid_request_error', 'VALIDATION', 'VALIDATION', 'INVALID_INPUT'],
    [413, 'request_too_large', 'VALIDATION', 'VALIDATION', 'INVALID_INPUT'],
    [401, 'authentication_error', 'AUTHORIZATION', 'AUTHORIZATION', 'NOT_AUTHORIZED'],
    [403, 'permission_error', 'AUTHORIZATION', 'AUTHORIZATION', 'FORBIDDEN'],
    [404, 'not_found_error', 'PERMANENT', 'PERMANENT', 'NOT_FOUND'],
    [500, 'api_error', 'TRANSIENT', 'UNKNOWN_OUTCOME', 'SERVER_ERROR'],
  ])('%i %s', async (status, type, noHint, withHint, code) => {
    fixture.reply({ status, body: anthropicBody(type) });
    const error = await rejection(() => ask(client(fixture.url)));
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(error).toMatchObject({ status });
    expect(classesOf(error)).toEqual([noHint, withHint, code]);
  });

  it('429 waits for retry-after, or for the exhausted limit to reset', async () => {
    fixture.reply({
      status: 429,
      headers: { 'retry-after': '12' },
      body: anthropicBody('rate_limit_error'),
    });
    expect(classifyFailure(await rejection(() => ask(client(fixture.url)))).retryAfterMs).toBe(
      12_000,
    );
    const clock = createFakeClock(Date.parse('2026-03-01T12:00:00Z'));
    fixture.reply({
      status: 429,
      headers: {
        'anthropic-ratelimit-input-tokens-remaining': '0',
        'anthropic-ratelimit-input-tokens-reset': '2026-03-01T12:00:08Z',
      },
      body: anthropicBody('rate_limit_error'),
    });
    const error = await rejection(() => ask(client(fixture.url)));
    expect(createClassifier({ clock })(error).retryAfterMs).toBe(8000);
  });

  it('an overloaded error inside a 200 stream is SERVICE_UNAVAILABLE', async () => {
    fixture.reply({
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
      body: `event: error\ndata: ${JSON.stringify(anthropicBody('overloaded_error'))}\n\n`,
    });
    const error = await rejection(async () => {
      const stream = await client(fixture.url).messages.create({
        model: 'claude-sonnet-4-5',
        max_tokens: 16,
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      });
      for await (const _event of stream) {
        // drain
      }
    });
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(classesOf(error)).toEqual(['TRANSIENT', 'TRANSIENT', 'SERVICE_UNAVAILABLE']);
  });

  it('a refused connection is TRANSIENT; a timeout may have reached the API', async () => {
    const refused = await rejection(async () =>
      ask(client(`http://127.0.0.1:${await closedPort()}`)),
    );
    expect(refused).toBeInstanceOf(Anthropic.APIConnectionError);
    expect(classesOf(refused)).toEqual(['TRANSIENT', 'TRANSIENT', 'CONNECTION_REFUSED']);
    fixture.reply({ hang: true });
    const timedOut = await rejection(() => ask(client(fixture.url, 50)));
    expect(timedOut).toBeInstanceOf(Anthropic.APIConnectionTimeoutError);
    expect(classesOf(timedOut)).toEqual(['TRANSIENT', 'UNKNOWN_OUTCOME', 'TIMEOUT']);
  });
});
