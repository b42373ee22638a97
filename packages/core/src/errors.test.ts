import { describe, expect, it } from 'vitest';
import {
  AttemptTimeoutError,
  InvalidOptionsError,
  LeaseLostError,
  LedgerUnavailableError,
  RecourseError,
} from './errors.js';

const made = {
  InvalidOptionsError: new InvalidOptionsError('retry.maxAttempts', 'must be at least 1'),
  LeaseLostError: new LeaseLostError('run:pay:1'),
  LedgerUnavailableError: new LedgerUnavailableError('redis', 'connect ECONNREFUSED'),
  AttemptTimeoutError: new AttemptTimeoutError('pay', 5_000),
};
const classes = {
  InvalidOptionsError,
  LeaseLostError,
  LedgerUnavailableError,
  AttemptTimeoutError,
};

describe('RecourseError.isInstance', () => {
  it.each(Object.keys(classes))('%s accepts its own errors and no sibling', (name) => {
    const own = classes[name as keyof typeof classes];
    for (const [other, error] of Object.entries(made)) {
      expect(own.isInstance(error), `${name}.isInstance(${other})`).toBe(other === name);
      expect(RecourseError.isInstance(error)).toBe(true);
    }
  });

  it('rejects plain errors, look-alikes by name, and non-objects', () => {
    const lookAlike = Object.assign(new Error('x'), { name: 'LeaseLostError', code: 'LEASE_LOST' });
    for (const value of [lookAlike, new Error('x'), null, undefined, 'LeaseLostError', 42]) {
      expect(RecourseError.isInstance(value)).toBe(false);
      expect(LeaseLostError.isInstance(value)).toBe(false);
    }
  });

  it('survives a second copy of the package: the marker is a registered symbol', () => {
    // What a duplicate copy's class would stamp on its errors: the same Symbol.for keys.
    const fromOtherCopy = Object.assign(new Error('other copy'), {
      [Symbol.for('recourse.error')]: true,
      [Symbol.for('recourse.error.lease-lost')]: true,
    });
    expect(fromOtherCopy instanceof LeaseLostError).toBe(false);
    expect(LeaseLostError.isInstance(fromOtherCopy)).toBe(true);
    expect(InvalidOptionsError.isInstance(fromOtherCopy)).toBe(false);
  });

  it('keeps code, name and the fields callers read', () => {
    expect(made.InvalidOptionsError).toMatchObject({
      code: 'INVALID_OPTIONS',
      name: 'InvalidOptionsError',
      field: 'retry.maxAttempts',
    });
    expect(made.LedgerUnavailableError.message).toBe(
      'redis ledger unavailable: connect ECONNREFUSED',
    );
    expect(made.AttemptTimeoutError).toMatchObject({ name: 'TimeoutError', timeoutMs: 5_000 });
  });
});
