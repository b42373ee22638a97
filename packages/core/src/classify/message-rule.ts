import { transient, type Verdict, verdict } from './verdict.js';

// Last resort for errors that carry nothing but text (pg client timeouts, ioredis,
// undici's "terminated"). Plain alternations of literals: linear on bounded text.
const byMessage: ReadonlyArray<readonly [RegExp, Verdict]> = [
  // ai@7 hands tool-error parts only the error's text, which starts with its name.
  [/\bAI_NoSuchToolError\b/, verdict('VALIDATION', 'NO_SUCH_TOOL')],
  [/\bAI_JSONParseError\b/, verdict('VALIDATION', 'INVALID_JSON')],
  [/\bAI_(?:InvalidToolInput|TypeValidation)Error\b/, verdict('VALIDATION', 'INVALID_INPUT')],
  [/exceeded your current quota|insufficient[_ ]quota/i, verdict('PERMANENT', 'QUOTA_EXCEEDED')],
  // A denial said in words outranks a rate limit or timeout named later in the same text
  // ("permission denied: open '/srv/rate limit notes.txt'").
  [/permission denied|access denied|forbidden/i, verdict('AUTHORIZATION', 'FORBIDDEN')],
  [/not authori[sz]ed|unauthori[sz]ed/i, verdict('AUTHORIZATION', 'NOT_AUTHORIZED')],
  [/rate limit|too many requests|throttl/i, transient('RATE_LIMITED')],
  [/\boverloaded\b|service unavailable/i, transient('SERVICE_UNAVAILABLE')],
  // pg: connect timeout and pool checkout timeout; nothing was sent yet.
  [/timeout expired|timeout exceeded when trying to connect/i, transient('TIMEOUT')],
  [/query read timeout|command timed out|timed out|timeout/i, transient('TIMEOUT', true)],
  // ioredis with the offline queue off: the command was refused before it was written.
  [/ECONNREFUSED|connection refused|stream isn't writeable/i, transient('CONNECTION_REFUSED')],
  [/ENOTFOUND|EAI_AGAIN|getaddrinfo/i, transient('DNS_FAILURE')],
  [
    /^terminated$|socket hang ?up|other side closed|connection terminated|connection reset|ECONNRESET|connection is closed/i,
    transient('CONNECTION_RESET', true),
  ],
  // fetch and openai's APIConnectionError with no errno below them (msw's
  // HttpResponse.error(), a proxy refusal): a network failure at an unknown point.
  [/^fetch failed$|^connection error\.?$|^network error/i, transient('NETWORK_ERROR', true)],
  [/already exists|duplicate key/i, verdict('STALE_STATE', 'ALREADY_EXISTS')],
  [/precondition failed/i, verdict('STALE_STATE', 'PRECONDITION_FAILED')],
  [/version mismatch|etag mismatch|version conflict/i, verdict('STALE_STATE', 'CONFLICT')],
  [/card (?:was )?declined|payment required/i, verdict('PERMANENT', 'PAYMENT_REQUIRED')],
  [/not supported|unsupported operation|not implemented/i, verdict('PERMANENT', 'NOT_SUPPORTED')],
  [
    /request was aborted|operation was aborted/i,
    { ...verdict('PERMANENT', 'ABORTED'), ambiguous: true },
  ],
];

/** The table's answer from message text alone, first matching pattern across all messages. */
export function classifyMessages(messages: readonly string[]): Verdict | undefined {
  for (const [pattern, result] of byMessage) {
    if (messages.some((message) => pattern.test(message))) return result;
  }
  return undefined;
}
