import { classifyFailure } from '@recourse/core';
import { LogLevel, WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classesOf, closedPort, type Fixture, rejection, startFixture } from './support.js';

let fixture: Fixture;
beforeAll(async () => {
  fixture = await startFixture();
});
afterAll(() => fixture.close());

function slackAt(url: string) {
  return new WebClient('xoxb-classifier-test', {
    slackApiUrl: `${url}/api/`,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    logLevel: LogLevel.ERROR,
  });
}
const post = (url: string) => slackAt(url).chat.postMessage({ channel: 'C1', text: 'deploy done' });

describe('@slack/web-api errors', () => {
  it.each([
    ['not_authed', 'AUTHORIZATION', 'AUTHORIZATION', 'NOT_AUTHORIZED'],
    ['invalid_auth', 'AUTHORIZATION', 'AUTHORIZATION', 'NOT_AUTHORIZED'],
    ['token_revoked', 'AUTHORIZATION', 'AUTHORIZATION', 'NOT_AUTHORIZED'],
    ['missing_scope', 'AUTHORIZATION', 'AUTHORIZATION', 'FORBIDDEN'],
    ['channel_not_found', 'PERMANENT', 'PERMANENT', 'NOT_FOUND'],
    ['invalid_arguments', 'VALIDATION', 'VALIDATION', 'INVALID_INPUT'],
    ['msg_too_long', 'VALIDATION', 'VALIDATION', 'INVALID_INPUT'],
    ['already_reacted', 'STALE_STATE', 'STALE_STATE', 'ALREADY_EXISTS'],
    ['fatal_error', 'TRANSIENT', 'UNKNOWN_OUTCOME', 'SERVER_ERROR'],
    ['is_archived', 'PERMANENT', 'PERMANENT', 'REJECTED'],
  ])('platform error %s (HTTP 200, ok: false)', async (slackError, noHint, withHint, code) => {
    fixture.reply({ status: 200, body: { ok: false, error: slackError } });
    const error = await rejection(() => post(fixture.url));
    expect(error).toMatchObject({
      code: 'slack_webapi_platform_error',
      data: { error: slackError },
    });
    expect(classesOf(error)).toEqual([noHint, withHint, code]);
  });

  it('a rejected rate-limited call waits retryAfter seconds', async () => {
    fixture.reply({
      status: 429,
      headers: { 'retry-after': '7' },
      body: { ok: false, error: 'ratelimited' },
    });
    const error = await rejection(() => post(fixture.url));
    expect(error).toMatchObject({ code: 'slack_webapi_rate_limited_error', retryAfter: 7 });
    expect(classesOf(error)).toEqual(['TRANSIENT', 'TRANSIENT', 'RATE_LIMITED']);
    expect(classifyFailure(error).retryAfterMs).toBe(7000);
  });

  it('an HTTP error is read by its status', async () => {
    fixture.reply({ status: 503, body: 'unavailable' });
    const unavailable = await rejection(() => post(fixture.url));
    expect(unavailable).toMatchObject({ code: 'slack_webapi_http_error', statusCode: 503 });
    expect(classesOf(unavailable)).toEqual(['TRANSIENT', 'TRANSIENT', 'SERVICE_UNAVAILABLE']);
    fixture.reply({ status: 500, body: 'oops' });
    expect(classesOf(await rejection(() => post(fixture.url)))).toEqual([
      'TRANSIENT',
      'UNKNOWN_OUTCOME',
      'SERVER_ERROR',
    ]);
  });

  it('a request error over a refused connection is TRANSIENT', async () => {
    const error = await rejection(async () => post(`http://127.0.0.1:${await closedPort()}`));
    expect(error).toMatchObject({ code: 'slack_webapi_request_error' });
    expect(classesOf(error)).toEqual(['TRANSIENT', 'TRANSIENT', 'CONNECTION_REFUSED']);
  });
});
