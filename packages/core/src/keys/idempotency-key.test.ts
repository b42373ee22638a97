import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';
import {
  boundKey,
  deriveIdempotencyKey,
  maxIdempotencyKeyLength,
  payloadHash,
} from './idempotency-key.js';

describe('canonicalJson', () => {
  it('ignores key order and undefined fields, keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, 1], c: undefined } })).toBe('{"a":{"d":[3,1]},"b":1}');
  });

  it('formats numbers the ECMAScript way (RFC 8785)', () => {
    expect(canonicalJson([1.0, 1e21, 0.1 + 0.2, -0, 1e-7])).toBe(
      '[1,1e+21,0.30000000000000004,0,1e-7]',
    );
  });

  it('maps what JSON cannot say instead of throwing', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(canonicalJson({ n: Number.NaN, big: 10n, when: new Date(0), cyclic })).toBe(
      '{"big":"10","cyclic":{"a":1,"self":"[Circular]"},"n":null,"when":"1970-01-01T00:00:00.000Z"}',
    );
  });

  it('property: key order never changes the text', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (object) => {
        const reversed = Object.fromEntries(Object.entries(object).reverse());
        expect(canonicalJson(reversed)).toBe(canonicalJson(object));
        expect(JSON.parse(canonicalJson(object))).toEqual(JSON.parse(JSON.stringify(object)));
      }),
    );
  });
});

describe('deriveIdempotencyKey', () => {
  it('is the same for the same logical operation, whatever the key order', () => {
    const a = deriveIdempotencyKey({
      runId: 'run-1842',
      toolName: 'refund_payment',
      input: { paymentId: 'p-42', amount: 100 },
    });
    const b = deriveIdempotencyKey({
      runId: 'run-1842',
      toolName: 'refund_payment',
      input: { amount: 100, paymentId: 'p-42', note: undefined },
    });
    expect(a).toBe(b);
    expect(a.startsWith('run-1842:refund_payment:')).toBe(true);
  });

  it('differs by run, tool and input', () => {
    const parts = { runId: 'r', toolName: 't', input: { x: 1 } };
    const key = deriveIdempotencyKey(parts);
    expect(deriveIdempotencyKey({ ...parts, runId: 'r2' })).not.toBe(key);
    expect(deriveIdempotencyKey({ ...parts, toolName: 't2' })).not.toBe(key);
    expect(deriveIdempotencyKey({ ...parts, input: { x: 2 } })).not.toBe(key);
  });

  it('never exceeds 255 characters and stays unique when long', () => {
    const long = 'r'.repeat(400);
    const a = deriveIdempotencyKey({ runId: long, toolName: 'x'.repeat(300), input: 1 });
    const b = deriveIdempotencyKey({ runId: `${long}b`, toolName: 'x'.repeat(300), input: 1 });
    expect(a.length).toBeLessThanOrEqual(maxIdempotencyKeyLength);
    expect(a).not.toBe(b);
    expect(boundKey('k'.repeat(1000)).length).toBeLessThanOrEqual(maxIdempotencyKeyLength);
    expect(boundKey('short-key')).toBe('short-key');
  });

  it('payloadHash tracks the canonical payload', () => {
    expect(payloadHash({ a: 1, b: 2 })).toBe(payloadHash({ b: 2, a: 1 }));
    expect(payloadHash({ a: 1 })).not.toBe(payloadHash({ a: 2 }));
  });
});
