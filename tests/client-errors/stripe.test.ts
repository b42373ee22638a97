import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classesOf, closedPort, type Fixture, rejection, startFixture } from './support.js';

let fixture: Fixture;
const clients: Stripe[] = [];

function stripeAt(port: number, options: Stripe.StripeConfig = {}): Stripe {
  const client = new Stripe('sk_test_classifier', {
    host: '127.0.0.1',
    port,
    protocol: 'http',
    maxNetworkRetries: 0,
    ...options,
  });
  clients.push(client);
  return client;
}

beforeAll(async () => {
  fixture = await startFixture();
});
afterAll(() => fixture.close());

/** The error stripe-node throws for this answer to a create (a write). */
async function stripeError(status: number, error: Record<string, string>, headers = {}) {
  fixture.reply({
    status,
    headers,
    body: { error: { message: `stripe: ${error.code ?? error.type}`, ...error } },
  });
  return rejection(() => stripeAt(fixture.port).refunds.create({ payment_intent: 'pi_1' }));
}

describe('stripe-node errors', () => {
  it.each([
    [
      409,
      { type: 'invalid_request_error', code: 'idempotency_key_in_use' },
      'TRANSIENT',
      'TRANSIENT',
      'IDEMPOTENCY_KEY_IN_USE',
    ],
    [
      429,
      { type: 'invalid_request_error', code: 'lock_timeout' },
      'TRANSIENT',
      'TRANSIENT',
      'LOCK_TIMEOUT',
    ],
    [
      429,
      { type: 'rate_limit_error', code: 'rate_limit' },
      'TRANSIENT',
      'TRANSIENT',
      'RATE_LIMITED',
    ],
    [400, { type: 'idempotency_error' }, 'STALE_STATE', 'STALE_STATE', 'IDEMPOTENCY_KEY_REUSED'],
    [
      400,
      { type: 'invalid_request_error', code: 'resource_already_exists' },
      'STALE_STATE',
      'STALE_STATE',
      'ALREADY_EXISTS',
    ],
    [
      400,
      { type: 'invalid_request_error', code: 'parameter_missing' },
      'VALIDATION',
      'VALIDATION',
      'INVALID_INPUT',
    ],
    [
      402,
      { type: 'card_error', code: 'card_declined' },
      'PERMANENT',
      'PERMANENT',
      'PAYMENT_REQUIRED',
    ],
    [
      404,
      { type: 'invalid_request_error', code: 'resource_missing' },
      'PERMANENT',
      'PERMANENT',
      'NOT_FOUND',
    ],
    [401, { type: 'invalid_request_error' }, 'AUTHORIZATION', 'AUTHORIZATION', 'NOT_AUTHORIZED'],
    [403, { type: 'invalid_request_error' }, 'AUTHORIZATION', 'AUTHORIZATION', 'FORBIDDEN'],
    [500, { type: 'api_error' }, 'TRANSIENT', 'UNKNOWN_OUTCOME', 'SERVER_ERROR'],
  ] as const)('%i %o', async (status, error, noHint, withHint, code) => {
    const thrown = await stripeError(status, error);
    expect(thrown).toMatchObject({ statusCode: status });
    expect((thrown as { type: string }).type).toMatch(/^Stripe\w*Error$/);
    expect(classesOf(thrown)).toEqual([noHint, withHint, code]);
  });

  it('StripeConnectionError over a refused connection: the write was never sent', async () => {
    const error = await rejection(async () =>
      stripeAt(await closedPort()).refunds.create({ payment_intent: 'pi_1' }),
    );
    expect(error).toMatchObject({
      type: 'StripeConnectionError',
      detail: { code: 'ECONNREFUSED' },
    });
    expect(classesOf(error)).toEqual(['TRANSIENT', 'TRANSIENT', 'CONNECTION_REFUSED']);
  });

  it('StripeConnectionError after a timeout may have reached Stripe', async () => {
    fixture.reply({ hang: true });
    const error = await rejection(() =>
      stripeAt(fixture.port, { timeout: 50 }).refunds.create({ payment_intent: 'pi_1' }),
    );
    expect(error).toMatchObject({ type: 'StripeConnectionError' });
    expect(classesOf(error)).toEqual(['TRANSIENT', 'UNKNOWN_OUTCOME', 'TIMEOUT']);
  });

  it('StripeConnectionError after the connection dropped may have reached Stripe', async () => {
    fixture.reply({ drop: true });
    const error = await rejection(() =>
      stripeAt(fixture.port).refunds.create({ payment_intent: 'pi_1' }),
    );
    expect(error).toMatchObject({ type: 'StripeConnectionError' });
    expect(classesOf(error)).toEqual(['TRANSIENT', 'UNKNOWN_OUTCOME', 'CONNECTION_RESET']);
  });
});
