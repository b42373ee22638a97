import { describe, expect, it } from 'vitest';
import { classifyFailure } from './classify-failure.js';

function both(message: string) {
  const error = new Error(message);
  const plain = classifyFailure(error);
  return [
    plain.failureClass,
    classifyFailure(error, { sideEffects: true }).failureClass,
    plain.code,
  ];
}

describe('bare messages that carry a status or an errno', () => {
  it.each([
    ['Request failed with status code 503', 'TRANSIENT', 'TRANSIENT', 'SERVICE_UNAVAILABLE'],
    ['Request failed with status code 500', 'TRANSIENT', 'UNKNOWN_OUTCOME', 'SERVER_ERROR'],
    ['Request failed with status code 404', 'PERMANENT', 'PERMANENT', 'NOT_FOUND'],
    ['Request failed with status code 422', 'VALIDATION', 'VALIDATION', 'INVALID_INPUT'],
    ['Request failed with status code 409', 'STALE_STATE', 'STALE_STATE', 'CONFLICT'],
    ['Request failed with status code 401', 'AUTHORIZATION', 'AUTHORIZATION', 'NOT_AUTHORIZED'],
    ['Response code 502 (Bad Gateway)', 'TRANSIENT', 'UNKNOWN_OUTCOME', 'SERVER_ERROR'],
    ['HTTP/1.1 504', 'TRANSIENT', 'UNKNOWN_OUTCOME', 'TIMEOUT'],
    ['upstream returned HTTP 429', 'TRANSIENT', 'TRANSIENT', 'RATE_LIMITED'],
    ['got status: 412', 'STALE_STATE', 'STALE_STATE', 'PRECONDITION_FAILED'],
    ['statusCode=402', 'PERMANENT', 'PERMANENT', 'PAYMENT_REQUIRED'],
    ['Error: 403 Forbidden', 'AUTHORIZATION', 'AUTHORIZATION', 'FORBIDDEN'],
    [
      '529 {"type":"error","error":{"type":"overloaded_error"}}',
      'TRANSIENT',
      'TRANSIENT',
      'SERVICE_UNAVAILABLE',
    ],
    ['connect ECONNREFUSED 10.0.0.1:443', 'TRANSIENT', 'TRANSIENT', 'CONNECTION_REFUSED'],
    ['connect ETIMEDOUT 10.0.0.1:443', 'TRANSIENT', 'TRANSIENT', 'TIMEOUT'],
    ['read ETIMEDOUT', 'TRANSIENT', 'UNKNOWN_OUTCOME', 'TIMEOUT'],
    ['write EPIPE', 'TRANSIENT', 'UNKNOWN_OUTCOME', 'CONNECTION_RESET'],
    ['connect EHOSTUNREACH 10.0.0.9:5432', 'TRANSIENT', 'TRANSIENT', 'CONNECTION_REFUSED'],
    ['getaddrinfo EAI_AGAIN api.example.com', 'TRANSIENT', 'TRANSIENT', 'DNS_FAILURE'],
    ['EEXIST: file already exists, mkdir', 'STALE_STATE', 'STALE_STATE', 'ALREADY_EXISTS'],
    ['UND_ERR_CONNECT_TIMEOUT', 'TRANSIENT', 'TRANSIENT', 'TIMEOUT'],
    // A refused connection written next to a status still means nothing was sent.
    [
      'Request failed with status code 500: connect ECONNREFUSED 10.0.0.1:443',
      'TRANSIENT',
      'TRANSIENT',
      'CONNECTION_REFUSED',
    ],
  ])('%s', (message, noHint, withHint, code) => {
    expect(both(message)).toEqual([noHint, withHint, code]);
  });

  it('text without a status or errno stays unrecognised', () => {
    expect(both('processed 500 records, then stopped')).toEqual([
      'PERMANENT',
      'UNKNOWN_OUTCOME',
      'UNKNOWN',
    ]);
    expect(both('status 200 but the body was empty')).toEqual([
      'PERMANENT',
      'UNKNOWN_OUTCOME',
      'UNKNOWN',
    ]);
  });

  it('a structured status wins over a status in the text', () => {
    const error = Object.assign(new Error('Request failed with status code 503'), { status: 404 });
    expect(classifyFailure(error).code).toBe('NOT_FOUND');
  });
});
