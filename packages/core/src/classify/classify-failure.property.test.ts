import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { failureClasses } from '../types.js';
import { classifyFailure } from './classify-failure.js';

function expectValid(error: unknown, sideEffects?: boolean): void {
  const result = classifyFailure(error, sideEffects === undefined ? undefined : { sideEffects });
  expect(failureClasses).toContain(result.failureClass);
  expect(typeof result.code).toBe('string');
  expect(typeof result.message).toBe('string');
  expect(result.message.length).toBeLessThanOrEqual(500);
  for (const forbidden of ['\n', '\r', '\u0000']) expect(result.message).not.toContain(forbidden);
  if (result.retryAfterMs !== undefined) expect(result.retryAfterMs).toBeGreaterThanOrEqual(0);
}

const throwing = () => {
  throw new Error('hostile');
};

function hostileValues(): unknown[] {
  const trapAll = new Proxy(
    {},
    {
      get: throwing,
      has: throwing,
      ownKeys: throwing,
      getPrototypeOf: throwing,
      getOwnPropertyDescriptor: throwing,
    },
  );
  const { proxy: revoked, revoke } = Proxy.revocable(new Error('x'), {});
  revoke();
  const getters = Object.defineProperties(new Error('getters'), {
    message: { get: throwing },
    cause: { get: throwing },
    status: { get: throwing },
    headers: { get: throwing },
    name: { get: throwing },
  });
  const cyclic: Record<string, unknown> = { message: 'cyclic', code: 'ECONNRESET' };
  cyclic.cause = cyclic;
  cyclic.errors = [cyclic, cyclic];
  const frozen = Object.freeze(
    Object.assign(new Error('frozen'), { status: 404, cause: Object.freeze({}) }),
  );
  const hostileHeaders = { status: 429, headers: { get: throwing, forEach: throwing } };
  const headersProxy = { status: 429, headers: trapAll, responseHeaders: revoked };
  const huge = new Error(`huge ${'z'.repeat(10_000_000)}`);
  const weirdStatus = { status: Number.NaN, statusCode: '4299', code: 12, name: Symbol('n') };
  const arrayErrors = { errors: new Proxy([], { get: throwing }) };
  const toStringBomb = { toString: throwing, valueOf: throwing, [Symbol.toPrimitive]: throwing };
  const nullProto = Object.assign(Object.create(null), { message: 'null proto', code: 'EPIPE' });
  const hostileMetadata = { code: 8, details: 'x', metadata: { get: throwing } };
  const hostileReasons = {
    name: 'TransactionCanceledException',
    $fault: 'client',
    $metadata: {},
    CancellationReasons: new Proxy([], { get: throwing }),
  };
  const hostileClass = { message: 'WRONGPASS x', constructor: trapAll };
  return [
    trapAll,
    revoked,
    getters,
    cyclic,
    frozen,
    hostileHeaders,
    headersProxy,
    huge,
    weirdStatus,
    arrayErrors,
    toStringBomb,
    nullProto,
    hostileMetadata,
    hostileReasons,
    hostileClass,
    { cause: trapAll },
    { cause: revoked },
    Symbol('sym'),
    () => {},
    'x'.repeat(10_000_000),
  ];
}

describe('classifyFailure never throws', () => {
  it('on anything fast-check can build', () => {
    fc.assert(
      fc.property(
        fc.anything({ withBigInt: true, withMap: true, withSet: true }),
        fc.boolean(),
        (value, sideEffects) => {
          expectValid(value, sideEffects);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('on error-shaped records with arbitrary field values', () => {
    const field = fc.oneof(fc.anything(), fc.integer({ min: 100, max: 599 }), fc.string());
    const errorLike = fc.record(
      {
        message: field,
        status: field,
        statusCode: field,
        code: field,
        name: field,
        headers: fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.anything())),
        cause: fc.anything(),
        errors: fc.array(fc.anything()),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(errorLike, (value) => expectValid(value)),
      { numRuns: 500 },
    );
  });

  it('on client-family shapes with arbitrary field values', () => {
    const field = fc.oneof(fc.anything(), fc.integer({ min: -1, max: 600 }), fc.string());
    const familyLike = fc.record(
      {
        name: field,
        message: field,
        code: field,
        type: field,
        $fault: fc.oneof(fc.constantFrom('client', 'server'), field),
        $metadata: fc.oneof(fc.record({ httpStatusCode: field }), field),
        $retryable: field,
        CancellationReasons: fc.oneof(fc.array(fc.record({ Code: field })), field),
        details: fc.oneof(fc.string(), fc.array(fc.record({ reason: field, retryDelay: field }))),
        statusDetails: fc.array(
          fc.record({ retryDelay: fc.oneof(field, fc.record({ seconds: field, nanos: field })) }),
        ),
        metadata: fc.oneof(field, fc.constant(new Map([['grpc-retry-pushback-ms', ['x']]]))),
        status: field,
        command: fc.oneof(fc.string(), fc.record({ name: field, args: field })),
        responseCode: field,
        response: field,
        data: fc.oneof(fc.record({ error: field }), field),
        detail: field,
        original: field,
        retryAfter: field,
        retryAfterMs: field,
        retryDelay: field,
        event: field,
        cause: fc.anything(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(familyLike, fc.boolean(), (value, sideEffects) =>
        expectValid(value, sideEffects),
      ),
      { numRuns: 500 },
    );
  });

  it.each(hostileValues().map((value, index) => [index, value]))(
    'on hostile value #%i',
    (_index, value) => {
      expectValid(value);
      expectValid(value, true);
    },
  );

  it('a rule defeated by a hostile field leaves the other rules to answer', () => {
    const hostileReasons = {
      name: 'TransactionCanceledException',
      $fault: 'client',
      $metadata: { httpStatusCode: 400 },
      CancellationReasons: new Proxy([], { get: throwing }),
    };
    expect(classifyFailure(hostileReasons)).toMatchObject({
      failureClass: 'VALIDATION',
      status: 400,
    });
  });

  it('classifies a 10 MB message with a bounded, labelled result', () => {
    const result = classifyFailure(
      Object.assign(new Error(`boom ${'q'.repeat(10_000_000)}`), { status: 503 }),
    );
    expect(result).toMatchObject({ failureClass: 'TRANSIENT', code: 'SERVICE_UNAVAILABLE' });
    expect(result.message.length).toBe(500);
  });
});
