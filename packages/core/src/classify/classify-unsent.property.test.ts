import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyFailure } from './classify-failure.js';

const status = fc.option(fc.integer({ min: 100, max: 599 }), { nil: undefined });
const word = fc.string({ maxLength: 20 });

// One outer error shape per recognised client family, with whatever status and codes.
const families: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
  aws: fc.record({
    name: fc.constantFrom(
      'ThrottlingException',
      'AccessDeniedException',
      'ConditionalCheckFailedException',
      'ValidationException',
      'NoSuchKey',
    ),
    $fault: fc.constantFrom('client', 'server'),
    $metadata: fc.record({ httpStatusCode: status }),
  }),
  stripe: fc.record({
    type: fc.constantFrom(
      'StripeConnectionError',
      'StripeAPIError',
      'StripeCardError',
      'StripeIdempotencyError',
    ),
    code: fc.constantFrom(
      'idempotency_key_in_use',
      'lock_timeout',
      'card_declined',
      'resource_missing',
    ),
    statusCode: status,
  }),
  octokit: fc.record({
    name: fc.constant('HttpError'),
    status,
    response: fc.record({ status, headers: fc.constant({ 'x-ratelimit-remaining': '0' }) }),
  }),
  redis: fc.record({
    name: fc.constantFrom('ReplyError', 'Error'),
    message: fc.constantFrom(
      'WRONGPASS invalid',
      'NOAUTH Authentication required.',
      'NOPERM no',
      'WRONGTYPE x',
      'ERR syntax error',
    ),
  }),
  grpc: fc.record({
    code: fc.integer({ min: 1, max: 16 }),
    details: word,
    metadata: fc.constant({}),
  }),
  anthropic: fc.record({
    status,
    type: fc.constantFrom('overloaded_error', 'authentication_error', 'invalid_request_error'),
    error: fc.record({
      type: fc.constant('error'),
      error: fc.record({ type: fc.constantFrom('overloaded_error', 'permission_error') }),
    }),
  }),
  google: fc.record({
    status,
    message: fc
      .constantFrom('PERMISSION_DENIED', 'FAILED_PRECONDITION', 'INVALID_ARGUMENT', 'NOT_FOUND')
      .map((name) => JSON.stringify({ error: { code: 400, message: 'x', status: name } })),
  }),
  got: fc.record({
    name: fc.constantFrom('HTTPError', 'TimeoutError', 'RequestError'),
    code: fc.constantFrom('ERR_NON_2XX_3XX_RESPONSE', 'ETIMEDOUT'),
    event: fc.constantFrom('request', 'response', 'read'),
    response: fc.record({ statusCode: status }),
  }),
  ky: fc.record({ name: fc.constant('HTTPError'), response: fc.record({ status }) }),
  slack: fc.record({
    code: fc.constantFrom(
      'slack_webapi_platform_error',
      'slack_webapi_request_error',
      'slack_webapi_http_error',
    ),
    data: fc.record({
      ok: fc.constant(false),
      error: fc.constantFrom('invalid_auth', 'missing_scope', 'ratelimited'),
    }),
    statusCode: status,
  }),
  smtp: fc.record({
    code: fc.constantFrom('EAUTH', 'EENVELOPE', 'EMESSAGE', 'ESOCKET'),
    command: fc.constantFrom('AUTH PLAIN', 'RCPT TO', 'DATA'),
    responseCode: fc.integer({ min: 400, max: 599 }),
  }),
  postgres: fc.record({
    name: fc.constant('error'),
    severity: fc.constant('ERROR'),
    code: fc.constantFrom('42501', '23505', '28P01', '22001'),
  }),
  aiSdk: fc.record({
    name: fc.constant('AI_APICallError'),
    statusCode: status,
    isRetryable: fc.boolean(),
  }),
  bare: fc.record({
    message: fc
      .integer({ min: 100, max: 599 })
      .map((code) => `Request failed with status code ${code}`),
  }),
};

const refusal = fc.constantFrom(
  { code: 'ECONNREFUSED', syscall: 'connect', expected: 'CONNECTION_REFUSED' },
  { code: 'ENOTFOUND', syscall: 'getaddrinfo', expected: 'DNS_FAILURE' },
  { code: 'EAI_AGAIN', syscall: 'getaddrinfo', expected: 'DNS_FAILURE' },
  { code: 'EHOSTUNREACH', syscall: 'connect', expected: 'CONNECTION_REFUSED' },
  { code: 'UND_ERR_CONNECT_TIMEOUT', syscall: 'connect', expected: 'TIMEOUT' },
);

// How a family keeps the error it wraps.
const link: Record<string, string> = { stripe: 'detail', slack: 'original' };

describe('a refused connection on the cause chain is TRANSIENT, whatever is outside it', () => {
  for (const [family, outer] of Object.entries(families)) {
    it(family, () => {
      fc.assert(
        fc.property(
          outer,
          refusal,
          fc.nat({ max: 3 }),
          fc.boolean(),
          (shape, root, wrappers, sideEffects) => {
            let inner: object = Object.assign(new Error(`${root.syscall} ${root.code}`), {
              code: root.code,
              syscall: root.syscall,
            });
            for (let i = 0; i < wrappers; i++)
              inner = new TypeError('fetch failed', { cause: inner });
            const error = Object.assign(new Error('outer'), shape, {
              [link[family] ?? 'cause']: inner,
            });
            const result = classifyFailure(error, { sideEffects });
            expect(result.failureClass).toBe('TRANSIENT');
            expect(result.code).toBe(root.expected);
          },
        ),
        { numRuns: 200 },
      );
    });
  }
});
