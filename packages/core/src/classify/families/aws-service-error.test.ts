import { describe, expect, it } from 'vitest';
import { classifyFailure } from '../classify-failure.js';
import { classesOf } from './classes-of.test-harness.js';

function awsError(name: string, status: number, extra: Record<string, unknown> = {}) {
  return Object.assign(new Error(`${name} message`), {
    name,
    $fault: status >= 500 ? 'server' : 'client',
    $metadata: { httpStatusCode: status, attempts: 1 },
    ...extra,
  });
}

describe('AWS SDK v3 service exceptions (shape)', () => {
  it.each([
    ['ThrottlingException', 400, 'TRANSIENT', 'TRANSIENT', 'RATE_LIMITED'],
    ['ProvisionedThroughputExceededException', 400, 'TRANSIENT', 'TRANSIENT', 'RATE_LIMITED'],
    ['LimitExceededException', 400, 'TRANSIENT', 'TRANSIENT', 'RATE_LIMITED'],
    ['SlowDown', 503, 'TRANSIENT', 'TRANSIENT', 'RATE_LIMITED'],
    ['AccessDeniedException', 400, 'AUTHORIZATION', 'AUTHORIZATION', 'FORBIDDEN'],
    ['KMSAccessDeniedException', 400, 'AUTHORIZATION', 'AUTHORIZATION', 'FORBIDDEN'],
    ['UnrecognizedClientException', 400, 'AUTHORIZATION', 'AUTHORIZATION', 'NOT_AUTHORIZED'],
    ['ExpiredTokenException', 400, 'AUTHORIZATION', 'AUTHORIZATION', 'NOT_AUTHORIZED'],
    ['ConditionalCheckFailedException', 400, 'STALE_STATE', 'STALE_STATE', 'PRECONDITION_FAILED'],
    ['TransactionConflictException', 400, 'TRANSIENT', 'TRANSIENT', 'TRANSACTION_ROLLBACK'],
    ['ResourceInUseException', 400, 'STALE_STATE', 'STALE_STATE', 'CONFLICT'],
    ['BucketAlreadyOwnedByYou', 409, 'STALE_STATE', 'STALE_STATE', 'ALREADY_EXISTS'],
    ['ResourceNotFoundException', 400, 'PERMANENT', 'PERMANENT', 'NOT_FOUND'],
    ['NoSuchBucket', 404, 'PERMANENT', 'PERMANENT', 'NOT_FOUND'],
    ['RequestTimeout', 400, 'TRANSIENT', 'TRANSIENT', 'TIMEOUT'],
    ['RequestTimeoutException', 408, 'TRANSIENT', 'UNKNOWN_OUTCOME', 'TIMEOUT'],
    ['RequestTimeTooSkewed', 403, 'TRANSIENT', 'TRANSIENT', 'CLOCK_SKEW'],
    ['ServiceQuotaExceededException', 400, 'PERMANENT', 'PERMANENT', 'QUOTA_EXCEEDED'],
    // Names without a meaning of their own: the status decides.
    ['ValidationException', 400, 'VALIDATION', 'VALIDATION', 'INVALID_INPUT'],
    ['InternalServerError', 500, 'TRANSIENT', 'UNKNOWN_OUTCOME', 'SERVER_ERROR'],
  ])('%s (%i)', (name, status, noHint, withHint, code) => {
    expect(classesOf(awsError(name, status))).toEqual([noHint, withHint, code]);
  });

  it('InvalidSignatureException is clock skew when the signature expired, else credentials', () => {
    const expired = Object.assign(awsError('InvalidSignatureException', 400), {
      message: 'Signature expired: 20260301T120000Z is now earlier than 20260301T121500Z',
    });
    expect(classesOf(expired)[2]).toBe('CLOCK_SKEW');
    expect(classesOf(awsError('InvalidSignatureException', 400))[2]).toBe('NOT_AUTHORIZED');
  });

  it('an error modelled as retryable with throttling is rate limited whatever its name', () => {
    const error = awsError('SomeNewServiceError', 400, { $retryable: { throttling: true } });
    expect(classesOf(error)).toEqual(['TRANSIENT', 'TRANSIENT', 'RATE_LIMITED']);
  });

  it('a cancelled transaction is read by its reasons, structured or in the message', () => {
    const reasons = (codes: string[]) =>
      awsError('TransactionCanceledException', 400, {
        CancellationReasons: codes.map((Code) => ({ Code })),
      });
    expect(classesOf(reasons(['None', 'ConditionalCheckFailed']))[0]).toBe('STALE_STATE');
    expect(classesOf(reasons(['TransactionConflict', 'None']))).toEqual([
      'TRANSIENT',
      'TRANSIENT',
      'TRANSACTION_ROLLBACK',
    ]);
    expect(classesOf(reasons(['ThrottlingError']))[2]).toBe('RATE_LIMITED');
    const textOnly = Object.assign(awsError('TransactionCanceledException', 400), {
      message:
        'Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed]',
    });
    expect(classesOf(textOnly)[2]).toBe('PRECONDITION_FAILED');
    expect(classesOf(reasons(['None']))[0]).toBe('VALIDATION');
  });

  it('the same names without the SDK shape are not read as AWS exceptions', () => {
    const lookalike = Object.assign(new Error('x'), { name: 'ThrottlingException', status: 400 });
    expect(classifyFailure(lookalike).source).not.toBe('builtin:aws');
  });
});
