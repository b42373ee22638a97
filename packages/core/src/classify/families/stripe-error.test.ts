import { describe, expect, it } from 'vitest';
import { classesOf } from './classes-of.test-harness.js';

function stripeError(
  type: string,
  statusCode: number | undefined,
  extra: Record<string, unknown> = {},
) {
  return Object.assign(new Error('stripe says no'), { type, statusCode, ...extra });
}

describe('Stripe errors (shape)', () => {
  it.each([
    [
      'StripeAPIError',
      409,
      'idempotency_key_in_use',
      'TRANSIENT',
      'TRANSIENT',
      'IDEMPOTENCY_KEY_IN_USE',
    ],
    ['StripeRateLimitError', 429, 'lock_timeout', 'TRANSIENT', 'TRANSIENT', 'LOCK_TIMEOUT'],
    [
      'StripeInvalidRequestError',
      400,
      'resource_already_exists',
      'STALE_STATE',
      'STALE_STATE',
      'ALREADY_EXISTS',
    ],
    ['StripeCardError', 402, 'card_declined', 'PERMANENT', 'PERMANENT', 'PAYMENT_REQUIRED'],
    [
      'StripeInvalidRequestError',
      400,
      'parameter_missing',
      'VALIDATION',
      'VALIDATION',
      'INVALID_INPUT',
    ],
    ['StripeInvalidRequestError', 404, 'resource_missing', 'PERMANENT', 'PERMANENT', 'NOT_FOUND'],
    ['StripeAPIError', 500, undefined, 'TRANSIENT', 'UNKNOWN_OUTCOME', 'SERVER_ERROR'],
  ])('%s %i %s', (type, status, code, noHint, withHint, expected) => {
    expect(classesOf(stripeError(type, status, { code }))).toEqual([noHint, withHint, expected]);
  });

  it('an idempotency key reused with other parameters is stale state', () => {
    const error = stripeError('StripeIdempotencyError', 400, { rawType: 'idempotency_error' });
    expect(classesOf(error)).toEqual(['STALE_STATE', 'STALE_STATE', 'IDEMPOTENCY_KEY_REUSED']);
  });

  it('a connection error that is not a refusal may have reached Stripe', () => {
    const reset = stripeError('StripeConnectionError', undefined, {
      detail: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
    });
    expect(classesOf(reset)).toEqual(['TRANSIENT', 'UNKNOWN_OUTCOME', 'CONNECTION_RESET']);
    const bare = stripeError('StripeConnectionError', undefined, {
      message: 'An error occurred with our connection to Stripe.',
    });
    expect(classesOf(bare)).toEqual(['TRANSIENT', 'UNKNOWN_OUTCOME', 'NETWORK_ERROR']);
    const timeout = stripeError('StripeConnectionError', undefined, {
      message: 'Request aborted due to timeout being reached (80000ms)',
    });
    expect(classesOf(timeout)).toEqual(['TRANSIENT', 'UNKNOWN_OUTCOME', 'TIMEOUT']);
  });
});
