import { classifyCode } from './code-rule.js';
import type { FailureFacts } from './failure-facts.js';
import { classifyHttpStatus } from './http-status-rule.js';
import type { Verdict } from './verdict.js';

// A status written into text: "Request failed with status code 503" (axios, got, ky),
// "status: 429", "HTTP 502", "HTTP/1.1 504", "Response code 500", or a leading
// "503 Service Unavailable". Bounded runs of literals and classes: linear.
const statusPatterns: readonly RegExp[] = [
  /\b(?:status(?:[ _]?code)?|response code|HTTP(?:\/\d(?:\.\d)?)?)[\s:=]{1,3}([1-5]\d\d)\b/i,
  /^(?:[A-Za-z]{0,40}Error: )?([1-5]\d\d) [A-Z{]/,
];
// errno and undici codes in text, with the syscall before one ("connect ETIMEDOUT").
const errnoPattern =
  /(?:\b(connect|getaddrinfo|read|write) )?\b(E[A-Z]{3,15}|UND_ERR_[A-Z_]{3,30})\b/g;

function statusFromText(message: string): number | undefined {
  for (const pattern of statusPatterns) {
    const found = pattern.exec(message)?.[1];
    if (found !== undefined) return Number(found);
  }
  return undefined;
}

function errnoFromText(message: string): Verdict | undefined {
  for (const [, syscall, code] of message.matchAll(errnoPattern)) {
    const result = classifyCode(code ?? '', syscall === undefined ? [] : [syscall]);
    if (result) return result;
  }
  return undefined;
}

/**
 * An errno or undici code in the text of an error reduced to its text
 * (`new Error(String(error))`). More specific than the wording rules, so it runs first.
 */
export function classifyMessageErrno(facts: FailureFacts): Verdict | undefined {
  if (facts.statuses.length > 0) return undefined;
  for (const message of facts.messages) {
    const result = errnoFromText(message);
    if (result) return result;
  }
  return undefined;
}

/** A status in the text, when no structured status was found: the last resort. */
export function classifyMessageStatus(facts: FailureFacts): Verdict | undefined {
  if (facts.statuses.length > 0) return undefined;
  for (const message of facts.messages) {
    const status = statusFromText(message);
    const result = status === undefined ? undefined : classifyHttpStatus(status);
    if (result) return result;
  }
  return undefined;
}
