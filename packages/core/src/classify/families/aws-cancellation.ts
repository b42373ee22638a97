import { readProperty, readString } from '../safe-read.js';
import { transient, type Verdict, verdict } from '../verdict.js';

// DynamoDB's TransactionCanceledException lists one reason per item; the first that
// applies, in this order, decides: a failed condition does not go away by retrying.
const byReason: ReadonlyArray<readonly [string, Verdict]> = [
  ['ConditionalCheckFailed', verdict('STALE_STATE', 'PRECONDITION_FAILED')],
  ['ValidationError', verdict('VALIDATION', 'INVALID_INPUT')],
  ['ItemCollectionSizeLimitExceeded', verdict('PERMANENT', 'QUOTA_EXCEEDED')],
  ['TransactionConflict', transient('TRANSACTION_ROLLBACK')],
  ['ProvisionedThroughputExceeded', transient('RATE_LIMITED')],
  ['ThrottlingError', transient('RATE_LIMITED')],
  ['RequestLimitExceeded', transient('RATE_LIMITED')],
];

function reasonCodes(node: object, message: string): string[] {
  const reasons = readProperty(node, 'CancellationReasons');
  if (Array.isArray(reasons)) {
    return reasons.slice(0, 100).map((reason) => readString(reason, 'Code') ?? '');
  }
  // Without the structured list, the message names the reasons: "... [ConditionalCheckFailed, None]".
  const listed = /\[([A-Za-z, ]{1,2000})\]/.exec(message)?.[1];
  return listed === undefined ? [] : listed.split(',').map((code) => code.trim());
}

/** What a cancelled DynamoDB transaction means, from its cancellation reasons. */
export function classifyCancellation(node: object, message: string): Verdict | undefined {
  const codes = reasonCodes(node, message);
  for (const [reason, result] of byReason) {
    if (codes.includes(reason)) return result;
  }
  return undefined;
}
