import { describe, expect, it } from 'vitest';
import { buildContract } from '../contract/recovery-contract.js';
import { classifyFailure } from './classify-failure.js';
import { distinctMessages } from './compose-message.js';

const limit = 'amount must be at most 120';
const body = { message: limit, field: 'amount' };
const unprocessable = (message: string, extra: object) =>
  Object.assign(new Error(message), { status: 422, ...extra });

describe('a failure says each message once', () => {
  it.each<[string, unknown, string]>([
    ['the body repeats the message', unprocessable(limit, { body }), limit],
    [
      'a wrapper holds its cause',
      unprocessable(`HTTP 422: ${limit}`, { body }),
      `HTTP 422: ${limit}`,
    ],
    [
      'a cause holds its wrapper',
      unprocessable(limit, { cause: new Error(`validation failed: ${limit}`) }),
      `validation failed: ${limit}`,
    ],
    [
      'the body kept as JSON text',
      unprocessable(limit, { responseBody: JSON.stringify(body) }),
      limit,
    ],
    [
      'the same sentence in another case, with a full stop',
      unprocessable(`${limit}.`, { error: { message: 'Amount must be at most 120' } }),
      `${limit}.`,
    ],
    [
      'a wrapper that says something else keeps both',
      unprocessable('Request failed with status 422', { body }),
      `Request failed with status 422: ${limit}`,
    ],
    [
      'a JSON body with more to say is kept',
      unprocessable(limit, {
        responseBody: '{"message":"amount must be at most 120","hint":"use 120"}',
      }),
      `${limit}: {"hint":"use 120"}`,
    ],
  ])('%s', (_name, error, message) => {
    const classification = classifyFailure(error);
    expect(classification.message).toBe(message);
    const contract = buildContract({
      tool: 'refund_payment',
      classification,
      decision: { action: 'REPAIR', reason: 'fix the input', code: 'REPAIR', terminal: false },
    });
    expect(contract.error_detail).toContain(limit);
    expect(contract.error_detail).not.toMatch(/at most 120.*at most 120/is);
  });

  it('keeps distinct messages in order, outermost first', () => {
    expect(distinctMessages(['a failed', 'b failed', 'A failed.'])).toEqual([
      'a failed',
      'b failed',
    ]);
    expect(distinctMessages(['b', 'x: b: c', 'b: c'])).toEqual(['x: b: c']);
    expect(distinctMessages(['', '   '])).toEqual([]);
  });
});

describe('a body that names the invalid field', () => {
  it.each<[string, unknown, string | undefined]>([
    ['field on the body object', unprocessable(limit, { body }), 'amount'],
    [
      'field in the JSON text of the body',
      unprocessable(limit, { responseBody: JSON.stringify(body) }),
      'amount',
    ],
    [
      'field under error in the JSON text',
      unprocessable(limit, {
        responseBody: '{"error":{"message":"too big","field":"items[2].amount"}}',
      }),
      'items[2].amount',
    ],
    [
      'a sentence in field is no field name',
      unprocessable(limit, { body: { field: 'the amount, please' } }),
      undefined,
    ],
    [
      'param wins over field',
      unprocessable(limit, { body: { param: 'total', field: 'amount' } }),
      'total',
    ],
  ])('%s', (_name, error, field) => {
    expect(classifyFailure(error).field).toBe(field);
  });
});
