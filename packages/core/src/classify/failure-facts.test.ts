import { describe, expect, it } from 'vitest';
import { readFailureFacts } from './failure-evidence.js';

describe('readFailureFacts', () => {
  it('walks the cause chain, outermost first', () => {
    const root = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
      code: 'ECONNREFUSED',
      syscall: 'connect',
    });
    const error = new Error('Connection error.', {
      cause: new TypeError('fetch failed', { cause: root }),
    });
    const facts = readFailureFacts(error);
    expect(facts.codes).toEqual(['ECONNREFUSED']);
    expect(facts.syscalls).toEqual(['connect']);
    expect(facts.names).toEqual(['Error', 'TypeError']);
    expect(facts.messages).toEqual([
      'Connection error.',
      'fetch failed',
      'connect ECONNREFUSED 127.0.0.1:1',
    ]);
  });

  it('reads every status and header location', () => {
    const facts = readFailureFacts({
      statusCode: 502,
      responseHeaders: { 'retry-after': '1' },
      cause: {
        response: { status: 503, headers: new Headers({ 'X-RateLimit-Remaining': '0' }) },
        $metadata: { httpStatusCode: 500 },
        headers: { 'Retry-After': '9', 'x-extra': ['a', 'b'] },
      },
    });
    expect(facts.statuses).toEqual([502, 503, 500]);
    expect(facts.headers).toEqual({
      'retry-after': '1',
      'x-ratelimit-remaining': '0',
      'x-extra': 'a, b',
    });
  });

  it('separates a pg SQLSTATE from errno-like codes', () => {
    const database = Object.assign(new Error('deadlock detected'), {
      name: 'error',
      code: '40P01',
      severity: 'ERROR',
    });
    const facts = readFailureFacts(
      Object.assign(new Error('x'), { code: 'EPIPE', cause: database }),
    );
    expect(facts.sqlStates).toEqual(['40P01']);
    expect(facts.codes).toEqual(['EPIPE']);
  });

  it('reads AggregateError members, RetryError lastError and error bodies', () => {
    const aggregate = new AggregateError([
      Object.assign(new Error('a'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('b'), { code: 'ETIMEDOUT' }),
    ]);
    expect(readFailureFacts(aggregate).codes).toEqual(['ECONNREFUSED', 'ETIMEDOUT']);
    const retry = {
      name: 'AI_RetryError',
      lastError: { name: 'AI_APICallError', statusCode: 429 },
      errors: [{ statusCode: 500 }],
    };
    expect(readFailureFacts(retry).statuses).toEqual([429, 500]);
    const body = { status: 429, error: { code: 'insufficient_quota', type: 'insufficient_quota' } };
    expect(readFailureFacts(body).codes).toEqual(['insufficient_quota']);
  });

  it('names the first offending field of zod-like and Standard Schema issues', () => {
    expect(readFailureFacts({ issues: [{ path: ['user', 'email'] }] }).field).toBe('user.email');
    expect(readFailureFacts({ cause: [{ path: [{ key: 'items' }, 2] }] }).field).toBe('items.2');
    expect(readFailureFacts({ issues: [{ path: [] }] }).field).toBeUndefined();
  });

  it('names the field of a FastAPI detail list and of an OpenAI or Stripe param', () => {
    const fastApi = {
      status: 422,
      body: { detail: [{ loc: ['body', 'refund', 'amount'], msg: 'must be > 0' }] },
    };
    expect(readFailureFacts(fastApi).field).toBe('refund.amount');
    expect(readFailureFacts({ detail: [{ loc: ['query', 'limit'] }] }).field).toBe('limit');
    expect(readFailureFacts({ detail: 'Not Found' }).field).toBeUndefined();
    expect(readFailureFacts({ error: { type: 'card_error', param: 'amount' } }).field).toBe(
      'amount',
    );
    expect(readFailureFacts({ param: '' }).field).toBeUndefined();
    // zod issues first, when an error carries both.
    expect(readFailureFacts({ issues: [{ path: ['a'] }], param: 'b' }).field).toBe('a');
    const revoked = Proxy.revocable([], {});
    revoked.revoke();
    expect(readFailureFacts({ detail: revoked.proxy }).field).toBeUndefined();
  });

  it('stops at cycles and at the depth bound', () => {
    const a: Record<string, unknown> = { code: 'A' };
    const b: Record<string, unknown> = { code: 'B', cause: a };
    a.cause = b;
    expect(readFailureFacts(a).codes).toEqual(['A', 'B']);
    let deep: Record<string, unknown> = { code: 'BOTTOM' };
    for (let i = 0; i < 50; i++) deep = { cause: deep };
    expect(readFailureFacts(deep).codes).toEqual([]);
  });

  it('survives throwing getters, throwing and revoked proxies', () => {
    const getter = Object.defineProperty(new Error('m'), 'code', {
      get() {
        throw new Error('boom');
      },
    });
    expect(readFailureFacts(getter).messages).toEqual(['m']);
    const trap = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
        ownKeys() {
          throw new Error('trap');
        },
      },
    );
    expect(readFailureFacts({ cause: trap, headers: trap }).codes).toEqual([]);
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(() => readFailureFacts({ cause: proxy, errors: proxy, headers: proxy })).not.toThrow();
    expect(readFailureFacts(proxy).statuses).toEqual([]);
  });

  it('treats strings as messages and ignores other primitives', () => {
    expect(readFailureFacts('plain text').messages).toEqual(['plain text']);
    for (const value of [null, undefined, 42, Symbol('s'), true, 10n]) {
      expect(readFailureFacts(value).messages).toEqual([]);
    }
  });

  it('bounds each message', () => {
    const facts = readFailureFacts(new Error('y '.repeat(5_000_000)));
    expect(facts.messages[0]?.length).toBeLessThanOrEqual(8192);
  });
});
