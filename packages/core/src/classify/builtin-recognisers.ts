import { classifyCode, normalizeCode } from './code-rule.js';
import type { FailureFacts } from './failure-facts.js';
import { classifyHttpStatus } from './http-status-rule.js';
import { classifyMessages } from './message-rule.js';
import { classifyNames } from './name-rule.js';
import { classifySqlState } from './sql-state-rule.js';
import { transient, type Verdict, verdict } from './verdict.js';

export interface BuiltinRecogniser {
  name: string;
  recognise(facts: FailureFacts): Verdict | undefined;
}

function hasCode(facts: FailureFacts, code: string): boolean {
  return facts.codes.some((candidate) => normalizeCode(candidate) === code);
}

function isRateLimited(facts: FailureFacts): boolean {
  if (facts.statuses[0] === 429) return true;
  // GitHub signals primary and secondary rate limits with 403, not 429.
  if (facts.statuses[0] === 403) {
    return (
      facts.headers['x-ratelimit-remaining'] === '0' ||
      facts.messages.some((message) => /secondary rate limit/i.test(message))
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

/** The built-in rules, most specific evidence first. */
export const builtinRecognisers: readonly BuiltinRecogniser[] = [
  {
    name: 'builtin:ledger',
    recognise: (facts) =>
      hasCode(facts, 'LEDGER_UNAVAILABLE') ? transient('LEDGER_UNAVAILABLE') : undefined,
  },
  {
    // OpenAI answers an exhausted quota with 429; waiting does not help.
    name: 'builtin:quota',
    recognise: (facts) =>
      hasCode(facts, 'INSUFFICIENT_QUOTA') ? verdict('PERMANENT', 'QUOTA_EXCEEDED') : undefined,
  },
  {
    name: 'builtin:rate-limit',
    recognise: (facts) => (isRateLimited(facts) ? transient('RATE_LIMITED') : undefined),
  },
  {
    name: 'builtin:http',
    recognise: (facts) => first(facts.statuses, classifyHttpStatus),
  },
  {
    name: 'builtin:sqlstate',
    recognise: (facts) => first(facts.sqlStates, classifySqlState),
  },
  {
    name: 'builtin:code',
    recognise: (facts) => first(facts.codes, (code) => classifyCode(code, facts.syscalls)),
  },
  { name: 'builtin:name', recognise: (facts) => classifyNames(facts.names) },
  { name: 'builtin:message', recognise: (facts) => classifyMessages(facts.messages) },
];
