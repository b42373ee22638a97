import { describe, expect, it } from 'vitest';
import { classifyFailure } from './classify-failure.js';

function errno(code: string, syscall = 'connect') {
  return Object.assign(new Error(`${syscall} ${code} 127.0.0.1:1`), { code, syscall, errno: -1 });
}

/** [class without hint, class with sideEffects, code] */
function both(error: unknown) {
  const plain = classifyFailure(error);
  return [
    plain.failureClass,
    classifyFailure(error, { sideEffects: true }).failureClass,
    plain.code,
  ];
}

describe('facts before rules: the request never left', () => {
  it('a wrapper status (Octokit: 500 over a refused fetch) does not outrank the cause', () => {
    const fetchFailed = new TypeError('fetch failed', { cause: errno('ECONNREFUSED') });
    const wrapped = Object.assign(new Error('connect ECONNREFUSED'), {
      name: 'HttpError',
      status: 500,
      cause: fetchFailed,
    });
    expect(both(wrapped)).toEqual(['TRANSIENT', 'TRANSIENT', 'CONNECTION_REFUSED']);
    expect(classifyFailure(wrapped).source).toBe('builtin:not-sent');
  });

  it.each([
    ['ENOTFOUND', 'getaddrinfo', 'DNS_FAILURE'],
    ['EAI_AGAIN', 'getaddrinfo', 'DNS_FAILURE'],
    ['EHOSTUNREACH', 'connect', 'CONNECTION_REFUSED'],
    ['ETIMEDOUT', 'connect', 'TIMEOUT'],
    ['UND_ERR_CONNECT_TIMEOUT', 'connect', 'TIMEOUT'],
  ])(
    '%s (%s) under a 502 is TRANSIENT with and without side effects',
    (code, syscall, expected) => {
      const error = Object.assign(new Error('Bad gateway'), {
        statusCode: 502,
        cause: errno(code, syscall),
      });
      expect(both(error)).toEqual(['TRANSIENT', 'TRANSIENT', expected]);
    },
  );

  it('Stripe `detail`, Slack `original` and nodemailer `originalCode` are read', () => {
    const stripe = { type: 'StripeConnectionError', message: 'x', detail: errno('ECONNREFUSED') };
    const slack = {
      code: 'slack_webapi_request_error',
      original: errno('ENOTFOUND', 'getaddrinfo'),
    };
    const smtp = { code: 'ESOCKET', originalCode: 'ECONNREFUSED', command: 'CONN' };
    expect(both(stripe)).toEqual(['TRANSIENT', 'TRANSIENT', 'CONNECTION_REFUSED']);
    expect(both(slack)).toEqual(['TRANSIENT', 'TRANSIENT', 'DNS_FAILURE']);
    expect(both(smtp)).toEqual(['TRANSIENT', 'TRANSIENT', 'CONNECTION_REFUSED']);
  });

  it('a read timeout is not a connect fact: the status and the hint still decide', () => {
    const error = Object.assign(new Error('x'), { status: 500, cause: errno('ETIMEDOUT', 'read') });
    expect(both(error)).toEqual(['TRANSIENT', 'UNKNOWN_OUTCOME', 'SERVER_ERROR']);
  });

  it("a server's body naming its own refused connection proves nothing about this request", () => {
    const error = Object.assign(new Error('upstream failed'), {
      status: 500,
      error: { code: 'ECONNREFUSED', message: 'database unreachable' },
    });
    expect(both(error)).toEqual(['TRANSIENT', 'UNKNOWN_OUTCOME', 'SERVER_ERROR']);
  });

  it('an earlier refused attempt in a retry list does not cover the last attempt', () => {
    const last = Object.assign(new Error('Internal error'), { statusCode: 500 });
    const retry = Object.assign(new Error('Failed after 2 attempts'), {
      name: 'AI_RetryError',
      errors: [errno('ECONNREFUSED'), last],
      lastError: last,
    });
    expect(both(retry)).toEqual(['TRANSIENT', 'UNKNOWN_OUTCOME', 'SERVER_ERROR']);
    const refusedLast = { ...retry, lastError: errno('ECONNREFUSED'), errors: [last] };
    expect(both(refusedLast)).toEqual(['TRANSIENT', 'TRANSIENT', 'CONNECTION_REFUSED']);
  });
});
