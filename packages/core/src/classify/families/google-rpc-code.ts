import { transient, type Verdict, verdict } from '../verdict.js';

/**
 * google.rpc.Code by number (gRPC status codes) and name (Google APIs' JSON `status`),
 * read by meaning, following the code's documented HTTP mapping where it has one. The
 * exceptions say what the code means rather than what its HTTP status would:
 * FAILED_PRECONDITION (400) is state the caller must re-read, ABORTED (409) a concurrency
 * conflict, CANCELLED (499) may have cancelled work already done.
 */
const byName: Readonly<Record<string, Verdict>> = {
  CANCELLED: { ...verdict('PERMANENT', 'CANCELLED'), ambiguous: true },
  UNKNOWN: transient('SERVER_ERROR', true),
  INVALID_ARGUMENT: verdict('VALIDATION', 'INVALID_INPUT'),
  DEADLINE_EXCEEDED: transient('TIMEOUT', true),
  NOT_FOUND: verdict('PERMANENT', 'NOT_FOUND'),
  ALREADY_EXISTS: verdict('STALE_STATE', 'ALREADY_EXISTS'),
  PERMISSION_DENIED: verdict('AUTHORIZATION', 'FORBIDDEN'),
  RESOURCE_EXHAUSTED: transient('RATE_LIMITED'),
  FAILED_PRECONDITION: verdict('STALE_STATE', 'PRECONDITION_FAILED'),
  ABORTED: verdict('STALE_STATE', 'CONFLICT'),
  OUT_OF_RANGE: verdict('VALIDATION', 'INVALID_INPUT'),
  UNIMPLEMENTED: verdict('PERMANENT', 'NOT_SUPPORTED'),
  INTERNAL: transient('SERVER_ERROR', true),
  // 503: the server refused to take the call on; a gRPC client also reports a connection
  // it could not open this way (the gRPC recogniser reads its details for that).
  UNAVAILABLE: transient('SERVICE_UNAVAILABLE'),
  DATA_LOSS: transient('SERVER_ERROR', true),
  UNAUTHENTICATED: verdict('AUTHORIZATION', 'NOT_AUTHORIZED'),
};

const names = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
] as const;

/** The name of a numeric gRPC status (14 → UNAVAILABLE), if it is one. */
export function grpcCodeName(code: number): string | undefined {
  return Number.isInteger(code) ? names[code] : undefined;
}

/** The verdict for a google.rpc.Code name; OK and unknown names have none. */
export function classifyGoogleRpcCode(name: string): Verdict | undefined {
  return Object.hasOwn(byName, name) ? byName[name] : undefined;
}
