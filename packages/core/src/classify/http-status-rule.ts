import { transient, type Verdict, verdict } from './verdict.js';

const byStatus: Readonly<Record<number, Verdict>> = {
  400: verdict('VALIDATION', 'INVALID_INPUT'),
  401: verdict('AUTHORIZATION', 'NOT_AUTHORIZED'),
  402: verdict('PERMANENT', 'PAYMENT_REQUIRED'),
  403: verdict('AUTHORIZATION', 'FORBIDDEN'),
  404: verdict('PERMANENT', 'NOT_FOUND'),
  405: verdict('PERMANENT', 'NOT_SUPPORTED'),
  407: verdict('AUTHORIZATION', 'NOT_AUTHORIZED'),
  408: transient('TIMEOUT', true),
  409: verdict('STALE_STATE', 'CONFLICT'),
  410: verdict('PERMANENT', 'GONE'),
  412: verdict('STALE_STATE', 'PRECONDITION_FAILED'),
  // Payload too large, URI too long, unsupported media type, headers too large: the
  // request itself must change, which is a repair.
  413: verdict('VALIDATION', 'INVALID_INPUT'),
  414: verdict('VALIDATION', 'INVALID_INPUT'),
  415: verdict('VALIDATION', 'INVALID_INPUT'),
  422: verdict('VALIDATION', 'INVALID_INPUT'),
  428: verdict('STALE_STATE', 'PRECONDITION_FAILED'),
  429: transient('RATE_LIMITED'),
  431: verdict('VALIDATION', 'INVALID_INPUT'),
  501: verdict('PERMANENT', 'NOT_SUPPORTED'),
  503: transient('SERVICE_UNAVAILABLE'),
  504: transient('TIMEOUT', true),
  // Load shedding (Anthropic's "overloaded"): a 503 in meaning, the request was not taken on.
  529: transient('SERVICE_UNAVAILABLE'),
};

/** The table's answer for an HTTP status. Other 4xx are refusals, other 5xx may have acted. */
export function classifyHttpStatus(status: number): Verdict | undefined {
  const known = byStatus[status];
  if (known) return known;
  if (status >= 500 && status < 600) return transient('SERVER_ERROR', true);
  if (status >= 400 && status < 500) return verdict('PERMANENT', `HTTP_${status}`);
  return undefined;
}
