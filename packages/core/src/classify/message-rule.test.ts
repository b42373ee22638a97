import { describe, expect, it } from 'vitest';
import { classifyFailure } from './classify-failure.js';

describe('errors that carry only text', () => {
  it('a denial in words outranks a rate limit or a timeout named later in the same text', () => {
    expect(
      classifyFailure(new Error("permission denied: open '/srv/rate limit notes.txt'")),
    ).toMatchObject({
      failureClass: 'AUTHORIZATION',
    });
    expect(
      classifyFailure(new Error('unauthorized: the timeout settings are admin-only')),
    ).toMatchObject({
      failureClass: 'AUTHORIZATION',
    });
    expect(classifyFailure(new Error('rate limit exceeded, retry later'))).toMatchObject({
      failureClass: 'TRANSIENT',
      code: 'RATE_LIMITED',
    });
  });
});
