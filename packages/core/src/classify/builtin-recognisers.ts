import { classifyCode, normalizeCode } from './code-rule.js';
import type { FailureEvidence } from './failure-evidence.js';
import type { FailureFacts } from './failure-facts.js';
import { recogniseAwsServiceError } from './families/aws-service-error.js';
import { recogniseGoogleApiError } from './families/google-api-error.js';
import { recogniseGrpcStatus } from './families/grpc-status.js';
import { recogniseRedisReply } from './families/redis-reply.js';
import { recogniseSlackError } from './families/slack-platform-error.js';
import { recogniseSmtpReply } from './families/smtp-reply.js';
import { recogniseStripeError } from './families/stripe-error.js';
import { recogniseTimeoutPhase } from './families/timeout-phase.js';
import { classifyHttpStatus } from './http-status-rule.js';
import { classifyMessages } from './message-rule.js';
import { classifyMessageErrno, classifyMessageStatus } from './message-status-rule.js';
import { classifyNames } from './name-rule.js';
import { recogniseUnsent } from './not-sent-rule.js';
import { classifySqlState } from './sql-state-rule.js';
import { transient, type Verdict, verdict } from './verdict.js';

export interface BuiltinRecogniser {
  name: string;
  recognise(evidence: FailureEvidence): Verdict | undefined;
}

function hasCode(facts: FailureFacts, code: string): boolean {
  return facts.codes.some((candidate) => normalizeCode(candidate) === code);
}

// GitHub signals primary and secondary rate limits with 403, not 429.
const githubLimitText = /secondary rate limit|abuse detection mechanism/i;

function isRateLimited(facts: FailureFacts): boolean {
  if (facts.statuses[0] === 429) return true;
  if (facts.statuses[0] === 403) {
    return (
      facts.headers['x-ratelimit-remaining'] === '0' ||
      facts.messages.some((message) => githubLimitText.test(message))
    );
  }
  // Throttling codes win over the status: AWS throttles with 400 ThrottlingException.
  return facts.codes.some((code) => classifyCode(code)?.code === 'RATE_LIMITED');
}

const first = <T>(list: readonly T[], read: (item: T) => Verdict | undefined) => {
  for (const item of list) {
    const result = read(item);
    if (result) return result;
  }
  return undefined;
};

/**
 * The built-in rules, most specific evidence first: facts that prove the request never
 * left, then each client family's documented meanings, then statuses, codes, names and
 * text. Each answer ends the search.
 */
export const builtinRecognisers: readonly BuiltinRecogniser[] = [
  {
    name: 'builtin:ledger',
    recognise: ({ facts }) =>
      hasCode(facts, 'LEDGER_UNAVAILABLE') ? transient('LEDGER_UNAVAILABLE') : undefined,
  },
  { name: 'builtin:not-sent', recognise: recogniseUnsent },
  {
    // OpenAI answers an exhausted quota with 429; waiting does not help.
    name: 'builtin:quota',
    recognise: ({ facts }) =>
      hasCode(facts, 'INSUFFICIENT_QUOTA') ? verdict('PERMANENT', 'QUOTA_EXCEEDED') : undefined,
  },
  { name: 'builtin:aws', recognise: recogniseAwsServiceError },
  { name: 'builtin:stripe', recognise: recogniseStripeError },
  { name: 'builtin:grpc', recognise: recogniseGrpcStatus },
  { name: 'builtin:google', recognise: recogniseGoogleApiError },
  { name: 'builtin:redis', recognise: recogniseRedisReply },
  { name: 'builtin:slack', recognise: recogniseSlackError },
  { name: 'builtin:smtp', recognise: recogniseSmtpReply },
  { name: 'builtin:timeout-phase', recognise: recogniseTimeoutPhase },
  {
    name: 'builtin:rate-limit',
    recognise: ({ facts }) => (isRateLimited(facts) ? transient('RATE_LIMITED') : undefined),
  },
  {
    name: 'builtin:http',
    recognise: ({ facts }) => first(facts.statuses, classifyHttpStatus),
  },
  {
    name: 'builtin:sqlstate',
    recognise: ({ facts }) => first(facts.sqlStates, classifySqlState),
  },
  {
    name: 'builtin:code',
    recognise: ({ facts }) => first(facts.codes, (code) => classifyCode(code, facts.syscalls)),
  },
  { name: 'builtin:name', recognise: ({ facts }) => classifyNames(facts.names) },
  { name: 'builtin:message-errno', recognise: ({ facts }) => classifyMessageErrno(facts) },
  { name: 'builtin:message', recognise: ({ facts }) => classifyMessages(facts.messages) },
  { name: 'builtin:message-status', recognise: ({ facts }) => classifyMessageStatus(facts) },
];
