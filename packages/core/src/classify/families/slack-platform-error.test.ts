import { describe, expect, it } from 'vitest';
import { classifyFailure } from '../classify-failure.js';
import { classesOf } from './classes-of.test-harness.js';

function platformError(error: string) {
  return Object.assign(new Error(`An API error occurred: ${error}`), {
    code: 'slack_webapi_platform_error',
    data: { ok: false, error },
  });
}

describe('@slack/web-api errors (shape)', () => {
  it.each([
    ['not_authed', 'AUTHORIZATION', 'AUTHORIZATION', 'NOT_AUTHORIZED'],
    ['invalid_auth', 'AUTHORIZATION', 'AUTHORIZATION', 'NOT_AUTHORIZED'],
    ['token_revoked', 'AUTHORIZATION', 'AUTHORIZATION', 'NOT_AUTHORIZED'],
    ['missing_scope', 'AUTHORIZATION', 'AUTHORIZATION', 'FORBIDDEN'],
    ['not_allowed_token_type', 'AUTHORIZATION', 'AUTHORIZATION', 'FORBIDDEN'],
    ['ratelimited', 'TRANSIENT', 'TRANSIENT', 'RATE_LIMITED'],
    ['service_unavailable', 'TRANSIENT', 'TRANSIENT', 'SERVICE_UNAVAILABLE'],
    ['internal_error', 'TRANSIENT', 'UNKNOWN_OUTCOME', 'SERVER_ERROR'],
    ['channel_not_found', 'PERMANENT', 'PERMANENT', 'NOT_FOUND'],
    ['already_reacted', 'STALE_STATE', 'STALE_STATE', 'ALREADY_EXISTS'],
    ['invalid_blocks', 'VALIDATION', 'VALIDATION', 'INVALID_INPUT'],
    ['msg_too_long', 'VALIDATION', 'VALIDATION', 'INVALID_INPUT'],
    // Slack answered `ok: false`: whatever the reason, the method did not run.
    ['is_archived', 'PERMANENT', 'PERMANENT', 'REJECTED'],
  ])('%s', (error, noHint, withHint, code) => {
    expect(classesOf(platformError(error))).toEqual([noHint, withHint, code]);
  });

  it('a rejected rate-limited call waits `retryAfter` seconds', () => {
    const error = Object.assign(new Error('A rate-limit has been reached'), {
      code: 'slack_webapi_rate_limited_error',
      retryAfter: 7,
    });
    expect(classifyFailure(error, { sideEffects: true })).toMatchObject({
      failureClass: 'TRANSIENT',
      code: 'RATE_LIMITED',
      retryAfterMs: 7000,
    });
  });

  it('an HTTP error falls through to its status', () => {
    const error = Object.assign(new Error('An HTTP protocol error occurred: statusCode = 502'), {
      code: 'slack_webapi_http_error',
      statusCode: 502,
    });
    expect(classesOf(error)).toEqual(['TRANSIENT', 'UNKNOWN_OUTCOME', 'SERVER_ERROR']);
  });
});
