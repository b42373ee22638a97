import { transient, type Verdict, verdict } from './verdict.js';

/** `AccessDeniedException`, `rate_limit_exceeded`, `EAI_AGAIN` → ACCESS_DENIED_EXCEPTION, ... */
export function normalizeCode(code: string): string {
  return code
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_');
}

const never = (code: string) => transient(code);
const maybeSent = (code: string) => transient(code, true);

// Grouped by verdict; keys are normalized codes from errno, SDK bodies and cloud APIs.
const groups: ReadonlyArray<readonly [Verdict, readonly string[]]> = [
  [transient('LEDGER_UNAVAILABLE'), ['LEDGER_UNAVAILABLE']],
  [
    never('CONNECTION_REFUSED'),
    ['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN'],
  ],
  [never('DNS_FAILURE'), ['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL', 'EAI_NODATA']],
  [never('TIMEOUT'), ['UND_ERR_CONNECT_TIMEOUT']],
  [
    maybeSent('TIMEOUT'),
    [
      'ETIMEDOUT',
      'ESOCKETTIMEDOUT',
      'UND_ERR_HEADERS_TIMEOUT',
      'UND_ERR_BODY_TIMEOUT',
      'TIMEOUT',
      'REQUEST_TIMEOUT',
      'DEADLINE_EXCEEDED',
    ],
  ],
  [
    maybeSent('CONNECTION_RESET'),
    [
      'ECONNRESET',
      'EPIPE',
      'ECONNABORTED',
      'UND_ERR_SOCKET',
      'UND_ERR_CLOSED',
      'ERR_STREAM_PREMATURE_CLOSE',
    ],
  ],
  [verdict('PERMANENT', 'QUOTA_EXCEEDED'), ['INSUFFICIENT_QUOTA', 'QUOTA_EXCEEDED']],
  [
    transient('RATE_LIMITED'),
    [
      'RATE_LIMIT_EXCEEDED',
      'RATE_LIMITED',
      'RATE_LIMIT_ERROR',
      'TOO_MANY_REQUESTS',
      'TOO_MANY_REQUESTS_EXCEPTION',
      'THROTTLING',
      'THROTTLED',
      'THROTTLING_EXCEPTION',
      'REQUEST_LIMIT_EXCEEDED',
      'SLOW_DOWN',
      'PROVISIONED_THROUGHPUT_EXCEEDED_EXCEPTION',
      'RESOURCE_EXHAUSTED',
    ],
  ],
  [
    transient('SERVICE_UNAVAILABLE'),
    ['SERVICE_UNAVAILABLE', 'UNAVAILABLE', 'OVERLOADED', 'OVERLOADED_ERROR'],
  ],
  [maybeSent('SERVER_ERROR'), ['SERVER_ERROR', 'INTERNAL_ERROR', 'INTERNAL', 'API_ERROR']],
  [
    verdict('AUTHORIZATION', 'NOT_AUTHORIZED'),
    [
      'NOT_AUTHORIZED',
      'UNAUTHORIZED',
      'UNAUTHENTICATED',
      'INVALID_API_KEY',
      'AUTHENTICATION_ERROR',
      'INVALID_AUTHENTICATION',
    ],
  ],
  [
    verdict('AUTHORIZATION', 'FORBIDDEN'),
    [
      'FORBIDDEN',
      'PERMISSION_DENIED',
      'ACCESS_DENIED',
      'ACCESS_DENIED_EXCEPTION',
      'PERMISSION_ERROR',
      'INSUFFICIENT_PERMISSIONS',
      'UNAUTHORIZED_OPERATION',
      'EACCES',
      'EPERM',
    ],
  ],
  [
    verdict('VALIDATION', 'INVALID_INPUT'),
    [
      'INVALID_REQUEST_ERROR',
      'INVALID_ARGUMENT',
      'INVALID_PARAMETER',
      'INVALID_INPUT',
      'VALIDATION_ERROR',
      'CONTEXT_LENGTH_EXCEEDED',
    ],
  ],
  [verdict('VALIDATION', 'NO_SUCH_TOOL'), ['NO_SUCH_TOOL', 'UNKNOWN_TOOL']],
  [verdict('STALE_STATE', 'CONFLICT'), ['CONFLICT', 'VERSION_MISMATCH', 'ETAG_MISMATCH']],
  [
    verdict('STALE_STATE', 'PRECONDITION_FAILED'),
    ['PRECONDITION_FAILED', 'FAILED_PRECONDITION', 'CONDITIONAL_CHECK_FAILED_EXCEPTION'],
  ],
  [verdict('STALE_STATE', 'ALREADY_EXISTS'), ['ALREADY_EXISTS', 'EEXIST']],
  [verdict('PERMANENT', 'PAYMENT_REQUIRED'), ['CARD_DECLINED', 'PAYMENT_REQUIRED']],
  [
    verdict('PERMANENT', 'NOT_FOUND'),
    ['NOT_FOUND', 'RESOURCE_NOT_FOUND_EXCEPTION', 'NO_SUCH_KEY', 'MODEL_NOT_FOUND', 'ENOENT'],
  ],
  [
    verdict('PERMANENT', 'NOT_SUPPORTED'),
    ['NOT_SUPPORTED', 'UNSUPPORTED_OPERATION', 'UNIMPLEMENTED', 'ENOTSUP', 'EOPNOTSUPP'],
  ],
];

const byCode = new Map<string, Verdict>(
  groups.flatMap(([result, codes]) => codes.map((code) => [code, result] as const)),
);

/**
 * The table's answer for a string code. A connect-time timeout (`syscall: 'connect'`)
 * never reached the server, so it is not ambiguous.
 */
export function classifyCode(code: string, syscalls: readonly string[] = []): Verdict | undefined {
  const normalized = normalizeCode(code);
  const known = byCode.get(normalized);
  if (known?.code === 'TIMEOUT' && normalized === 'ETIMEDOUT' && syscalls.includes('connect')) {
    return never('TIMEOUT');
  }
  return known;
}
