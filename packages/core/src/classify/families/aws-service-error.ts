import type { FailureEvidence } from '../failure-evidence.js';
import { readProperty, readString } from '../safe-read.js';
import { transient, type Verdict, verdict } from '../verdict.js';
import { classifyCancellation } from './aws-cancellation.js';

const rateLimited = transient('RATE_LIMITED');
const denied = verdict('AUTHORIZATION', 'FORBIDDEN');
const unauthenticated = verdict('AUTHORIZATION', 'NOT_AUTHORIZED');
const clockSkew = transient('CLOCK_SKEW'); // rejected before it ran; the SDK re-syncs its clock

// Exception names (`name`, S3's XML `Code`) that mean something other than their status:
// DynamoDB answers throttles, denials and failed conditions all with 400. The throttling
// names are the SDK's own retry list.
const byName: Readonly<Record<string, Verdict>> = {
  ...Object.fromEntries(
    [
      'BandwidthLimitExceeded',
      'EC2ThrottledException',
      'LimitExceededException',
      'PriorRequestNotComplete',
      'ProvisionedThroughputExceededException',
      'RequestLimitExceeded',
      'RequestThrottled',
      'RequestThrottledException',
      'SlowDown',
      'ThrottledException',
      'Throttling',
      'ThrottlingException',
      'TooManyRequestsException',
      'TransactionInProgressException',
    ].map((name) => [name, rateLimited]),
  ),
  // S3: the upload stalled and the server gave up reading it, so nothing was stored.
  RequestTimeout: transient('TIMEOUT'),
  RequestTimeoutException: transient('TIMEOUT', true),
  RequestTimeTooSkewed: clockSkew,
  RequestExpired: clockSkew,
  RequestInTheFuture: clockSkew,
  ConditionalCheckFailedException: verdict('STALE_STATE', 'PRECONDITION_FAILED'),
  PreconditionFailed: verdict('STALE_STATE', 'PRECONDITION_FAILED'),
  ConditionalRequestConflict: verdict('STALE_STATE', 'CONFLICT'),
  ResourceInUseException: verdict('STALE_STATE', 'CONFLICT'),
  IdempotentParameterMismatchException: verdict('STALE_STATE', 'CONFLICT'),
  // Another transaction holds the item; this one was rejected before it applied.
  TransactionConflictException: transient('TRANSACTION_ROLLBACK'),
  ServiceQuotaExceededException: verdict('PERMANENT', 'QUOTA_EXCEEDED'),
  ItemCollectionSizeLimitExceededException: verdict('PERMANENT', 'QUOTA_EXCEEDED'),
  ...Object.fromEntries(
    [
      'UnrecognizedClientException',
      'InvalidClientTokenId',
      'InvalidAccessKeyId',
      'SignatureDoesNotMatch',
      'IncompleteSignature',
      'IncompleteSignatureException',
      'MissingAuthenticationToken',
      'MissingAuthenticationTokenException',
      'ExpiredToken',
      'ExpiredTokenException',
      'InvalidToken',
      'TokenRefreshRequired',
      'AuthFailure',
    ].map((name) => [name, unauthenticated]),
  ),
};

function classifyName(name: string, message: string, node: object): Verdict | undefined {
  if (name === 'TransactionCanceledException') return classifyCancellation(node, message);
  if (name === 'InvalidSignatureException') {
    return /Signature expired/i.test(message) ? clockSkew : unauthenticated;
  }
  if (Object.hasOwn(byName, name)) return byName[name];
  if (/AccessDenied|NotAuthorized|UnauthorizedOperation|AllAccessDisabled/.test(name))
    return denied;
  if (/AlreadyExists|AlreadyOwnedByYou/.test(name)) return verdict('STALE_STATE', 'ALREADY_EXISTS');
  if (/^NoSuch|NotFound(?:Exception|Fault)?$/.test(name)) return verdict('PERMANENT', 'NOT_FOUND');
  return undefined; // the HTTP status decides
}

function isServiceException(node: object): boolean {
  const fault = readProperty(node, '$fault');
  const metadata = readProperty(node, '$metadata');
  return (
    (fault === 'client' || fault === 'server') && typeof metadata === 'object' && metadata !== null
  );
}

/**
 * AWS SDK v3 service exceptions (`name`, `$fault`, `$metadata.httpStatusCode`): the
 * exception name is the meaning, the status only a fallback.
 */
export function recogniseAwsServiceError(evidence: FailureEvidence): Verdict | undefined {
  for (const { value, payload } of evidence.nodes) {
    if (payload || !isServiceException(value)) continue;
    const message = readString(value, 'message') ?? '';
    const throttled = readProperty(readProperty(value, '$retryable'), 'throttling') === true;
    if (throttled) return rateLimited;
    for (const name of [readString(value, 'name'), readString(value, 'Code')]) {
      const result = name === undefined ? undefined : classifyName(name, message, value);
      if (result) return result;
    }
    return undefined;
  }
  return undefined;
}
