import { classifyCode } from '../code-rule.js';
import type { FailureEvidence } from '../failure-evidence.js';
import type { FailureFacts } from '../failure-facts.js';
import { readString } from '../safe-read.js';
import { transient, type Verdict, verdict } from '../verdict.js';

// Stripe error codes whose meaning differs from their status (409, 429, 400).
const byCode: Readonly<Record<string, Verdict>> = {
  // Another request with this idempotency key is still running; the same key, later,
  // gets its result. Nothing was done twice.
  idempotency_key_in_use: transient('IDEMPOTENCY_KEY_IN_USE'),
  // Another request holds a lock on the object; this one did not run.
  lock_timeout: transient('LOCK_TIMEOUT'),
  resource_already_exists: verdict('STALE_STATE', 'ALREADY_EXISTS'),
};

function isStripeError(node: object): boolean {
  return /^Stripe[A-Za-z]*Error$/.test(readString(node, 'type') ?? '');
}

function classifyConnectionError(facts: FailureFacts): Verdict {
  // A refused connection in `detail` was already recognised; what is left (a reset, a
  // timeout) may have happened after Stripe received the request.
  for (const code of facts.codes) {
    const known = classifyCode(code, facts.syscalls);
    if (known?.failureClass === 'TRANSIENT') return known;
  }
  return facts.messages.some((message) => /timeout|timed out/i.test(message))
    ? transient('TIMEOUT', true)
    : transient('NETWORK_ERROR', true);
}

function classifyStripe(node: object, facts: FailureFacts): Verdict | undefined {
  const code = readString(node, 'code');
  if (code !== undefined && Object.hasOwn(byCode, code)) return byCode[code];
  const type = readString(node, 'type');
  // The key was used before with other parameters: that earlier request is state this
  // one did not know about.
  if (type === 'StripeIdempotencyError' || readString(node, 'rawType') === 'idempotency_error') {
    return verdict('STALE_STATE', 'IDEMPOTENCY_KEY_REUSED');
  }
  if (type === 'StripeConnectionError') return classifyConnectionError(facts);
  return undefined; // the status decides (402 card errors, 401, 403, 404, 5xx)
}

/** Stripe's errors (`type: 'Stripe…Error'`, `code`, `statusCode`, `detail`). */
export function recogniseStripeError(evidence: FailureEvidence): Verdict | undefined {
  for (const { value, payload } of evidence.nodes) {
    if (!payload && isStripeError(value)) return classifyStripe(value, evidence.facts);
  }
  return undefined;
}
