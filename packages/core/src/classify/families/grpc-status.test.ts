import { describe, expect, it } from 'vitest';
import { classifyFailure } from '../classify-failure.js';
import { classesOf } from './classes-of.test-harness.js';

function grpcError(code: number, details: string, extra: Record<string, unknown> = {}) {
  return Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {}, ...extra });
}

describe('gRPC status errors (shape)', () => {
  it.each([
    [1, 'Cancelled on client', 'PERMANENT', 'UNKNOWN_OUTCOME', 'CANCELLED'],
    [2, 'boom', 'TRANSIENT', 'UNKNOWN_OUTCOME', 'SERVER_ERROR'],
    [3, 'bad field', 'VALIDATION', 'VALIDATION', 'INVALID_INPUT'],
    [4, 'Deadline exceeded', 'TRANSIENT', 'UNKNOWN_OUTCOME', 'TIMEOUT'],
    [5, 'no such row', 'PERMANENT', 'PERMANENT', 'NOT_FOUND'],
    [6, 'exists', 'STALE_STATE', 'STALE_STATE', 'ALREADY_EXISTS'],
    [7, 'denied', 'AUTHORIZATION', 'AUTHORIZATION', 'FORBIDDEN'],
    [8, 'quota', 'TRANSIENT', 'TRANSIENT', 'RATE_LIMITED'],
    [9, 'version moved', 'STALE_STATE', 'STALE_STATE', 'PRECONDITION_FAILED'],
    [10, 'aborted', 'STALE_STATE', 'STALE_STATE', 'CONFLICT'],
    [11, 'out of range', 'VALIDATION', 'VALIDATION', 'INVALID_INPUT'],
    [12, 'unimplemented', 'PERMANENT', 'PERMANENT', 'NOT_SUPPORTED'],
    [13, 'internal', 'TRANSIENT', 'UNKNOWN_OUTCOME', 'SERVER_ERROR'],
    [14, 'try later', 'TRANSIENT', 'TRANSIENT', 'SERVICE_UNAVAILABLE'],
    [15, 'lost', 'TRANSIENT', 'UNKNOWN_OUTCOME', 'SERVER_ERROR'],
    [16, 'who are you', 'AUTHORIZATION', 'AUTHORIZATION', 'NOT_AUTHORIZED'],
  ])('code %i', (code, details, noHint, withHint, expected) => {
    expect(classesOf(grpcError(code, details))).toEqual([noHint, withHint, expected]);
  });

  it('UNAVAILABLE says in its details whether the call found a connection', () => {
    const unresolved = grpcError(14, 'Name resolution failed for target dns:nowhere.invalid');
    const dropped = grpcError(14, 'Connection dropped');
    expect(classesOf(unresolved)).toEqual(['TRANSIENT', 'TRANSIENT', 'DNS_FAILURE']);
    expect(classesOf(dropped)).toEqual(['TRANSIENT', 'UNKNOWN_OUTCOME', 'CONNECTION_RESET']);
  });

  it("RESOURCE_EXHAUSTED is the client's size check, not a rate limit, for a message too large", () => {
    expect(classesOf(grpcError(8, 'Sent message larger than max (5 vs. 4)'))[0]).toBe('VALIDATION');
    expect(classesOf(grpcError(8, 'Received message larger than max (5 vs. 4)'))).toEqual([
      'PERMANENT',
      'UNKNOWN_OUTCOME',
      'RESPONSE_TOO_LARGE',
    ]);
  });

  it('reads google-gax RetryInfo (statusDetails) and grpc-retry-pushback-ms', () => {
    const gax = grpcError(8, 'quota', {
      statusDetails: [{ retryDelay: { seconds: 3, nanos: 500_000_000 } }],
    });
    expect(classifyFailure(gax).retryAfterMs).toBe(3500);
    const metadata = new Map([['grpc-retry-pushback-ms', ['750']]]);
    expect(classifyFailure(grpcError(14, 'busy', { metadata })).retryAfterMs).toBe(750);
  });

  it('a numeric code without details or metadata is not a gRPC status', () => {
    const plain = Object.assign(new Error('x'), { code: 7 });
    expect(classifyFailure(plain).source).not.toBe('builtin:grpc');
  });
});
