import type { FailureEvidence } from '../failure-evidence.js';
import { readProperty, readString } from '../safe-read.js';
import { transient, type Verdict, verdict } from '../verdict.js';

const unauthenticated = verdict('AUTHORIZATION', 'NOT_AUTHORIZED');
const denied = verdict('AUTHORIZATION', 'FORBIDDEN');

// Slack's `error` strings (answered with HTTP 200 and `ok: false`).
const byError: Readonly<Record<string, Verdict>> = {
  not_authed: unauthenticated,
  invalid_auth: unauthenticated,
  account_inactive: unauthenticated,
  token_revoked: unauthenticated,
  token_expired: unauthenticated,
  org_login_required: unauthenticated,
  missing_scope: denied,
  no_permission: denied,
  not_allowed_token_type: denied,
  access_denied: denied,
  ekm_access_denied: denied,
  team_access_not_granted: denied,
  restricted_action: denied,
  ratelimited: transient('RATE_LIMITED'),
  rate_limited: transient('RATE_LIMITED'),
  service_unavailable: transient('SERVICE_UNAVAILABLE'),
  fatal_error: transient('SERVER_ERROR', true),
  internal_error: transient('SERVER_ERROR', true),
  already_reacted: verdict('STALE_STATE', 'ALREADY_EXISTS'),
  already_pinned: verdict('STALE_STATE', 'ALREADY_EXISTS'),
  already_in_channel: verdict('STALE_STATE', 'ALREADY_EXISTS'),
  already_archived: verdict('STALE_STATE', 'ALREADY_EXISTS'),
  name_taken: verdict('STALE_STATE', 'ALREADY_EXISTS'),
  msg_too_long: verdict('VALIDATION', 'INVALID_INPUT'),
  no_text: verdict('VALIDATION', 'INVALID_INPUT'),
  too_many_attachments: verdict('VALIDATION', 'INVALID_INPUT'),
};

function classifyPlatformError(error: string): Verdict {
  if (Object.hasOwn(byError, error)) return byError[error]!;
  if (/_not_found$/.test(error)) return verdict('PERMANENT', 'NOT_FOUND');
  if (/^(?:invalid|missing)_/.test(error)) return verdict('VALIDATION', 'INVALID_INPUT');
  // Slack answered `ok: false`: the method did not run, whatever the reason.
  return verdict('PERMANENT', 'REJECTED');
}

/**
 * @slack/web-api errors by their `code`: platform errors by Slack's `data.error`, a
 * rejected rate-limited call (its `retryAfter` is in seconds) as RATE_LIMITED. Request
 * and HTTP errors fall through to their cause and status.
 */
export function recogniseSlackError(evidence: FailureEvidence): Verdict | undefined {
  for (const { value, payload } of evidence.nodes) {
    if (payload) continue;
    const code = readString(value, 'code');
    if (code === 'slack_webapi_rate_limited_error') return transient('RATE_LIMITED');
    if (code === 'slack_webapi_platform_error') {
      const error = readString(readProperty(value, 'data'), 'error');
      return error === undefined ? verdict('PERMANENT', 'REJECTED') : classifyPlatformError(error);
    }
  }
  return undefined;
}
