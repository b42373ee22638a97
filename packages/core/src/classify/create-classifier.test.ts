import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../testing/fake-clock.js';
import { classifyFailure } from './classify-failure.js';
import { createClassifier } from './create-classifier.js';
import type { Recogniser } from './recogniser.js';

class StripeLikeError extends Error {
  override name = 'StripeCardError';
  constructor(
    message: string,
    readonly decline_code: string,
  ) {
    super(message);
  }
}

const cardDeclined: Recogniser = {
  name: 'stripe',
  recognise: (facts, error) =>
    facts.names.includes('StripeCardError') &&
    (error as StripeLikeError).decline_code === 'insufficient_funds'
      ? { failureClass: 'PERMANENT', code: 'CARD_DECLINED' }
      : undefined,
};

describe('createClassifier', () => {
  it('consults user recognisers before the built-in rules', () => {
    const classify = createClassifier({ recognisers: [cardDeclined] });
    const error = Object.assign(
      new StripeLikeError('declined sk_live_4eC39HqLyjWDarjtT1zdp7dc', 'insufficient_funds'),
      {
        statusCode: 503,
      },
    );
    expect(classify(error)).toMatchObject({
      failureClass: 'PERMANENT',
      code: 'CARD_DECLINED',
      source: 'stripe',
      status: 503,
      message: 'declined [REDACTED]',
    });
    // Without the recogniser the status decides.
    expect(classifyFailure(error).code).toBe('SERVICE_UNAVAILABLE');
  });

  it('takes the user class as given, whatever the side-effect hint', () => {
    const timeoutIsFine: Recogniser = {
      name: 'lenient',
      recognise: (facts) =>
        facts.names.includes('TimeoutError') ? { failureClass: 'TRANSIENT' } : undefined,
    };
    const classify = createClassifier({ recognisers: [timeoutIsFine] });
    const error = new DOMException('timed out', 'TimeoutError');
    expect(classify(error, { sideEffects: true })).toMatchObject({
      failureClass: 'TRANSIENT',
      code: 'lenient',
      source: 'lenient',
    });
    expect(classifyFailure(error, { sideEffects: true }).failureClass).toBe('UNKNOWN_OUTCOME');
  });

  it('skips recognisers that throw or answer nonsense, and passes on undefined', () => {
    const seen: string[] = [];
    const recognisers: Recogniser[] = [
      {
        name: 'throws',
        recognise: () => {
          seen.push('throws');
          throw new Error('bug in user code');
        },
      },
      {
        name: 'nonsense',
        recognise: () => {
          seen.push('nonsense');
          return { failureClass: 'MAYBE' } as never;
        },
      },
      {
        name: 'passes',
        recognise: () => {
          seen.push('passes');
          return undefined;
        },
      },
    ];
    const result = createClassifier({ recognisers })(
      Object.assign(new Error('x'), { status: 404 }),
    );
    expect(seen).toEqual(['throws', 'nonsense', 'passes']);
    expect(result).toMatchObject({
      failureClass: 'PERMANENT',
      code: 'NOT_FOUND',
      source: 'builtin:http',
    });
  });

  it('redacts and bounds a user-supplied message and keeps valid extras only', () => {
    const classify = createClassifier({
      maxMessageLength: 40,
      recognisers: [
        {
          name: 'custom',
          recognise: () => ({
            failureClass: 'VALIDATION',
            code: 'BAD_SKU',
            message: `sku rejected, token=abc123 ${'pad '.repeat(50)}`,
            retryAfterMs: -5,
            field: 'sku',
          }),
        },
      ],
    });
    const result = classify(new Error('x'));
    expect(result.message.length).toBeLessThanOrEqual(40);
    expect(result.message).toContain('token=[REDACTED]');
    expect(result).toMatchObject({ code: 'BAD_SKU', field: 'sku' });
    expect(result.retryAfterMs).toBeUndefined();
  });

  it('uses the injected clock for Retry-After dates', () => {
    const clock = createFakeClock(Date.parse('2026-03-01T12:00:00Z'));
    const classify = createClassifier({ clock });
    const error = {
      status: 503,
      headers: { 'retry-after': 'Sun, 01 Mar 2026 12:00:10 GMT' },
    };
    expect(classify(error).retryAfterMs).toBe(10_000);
  });
});
