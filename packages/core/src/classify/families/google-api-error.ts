import type { FailureEvidence } from '../failure-evidence.js';
import { readNumber, readProperty, readString } from '../safe-read.js';
import { type Verdict, verdict } from '../verdict.js';
import { classifyGoogleRpcCode } from './google-rpc-code.js';

// ErrorInfo reasons that mean the credentials, not the request, are wrong: Google answers
// a bad API key with 400 INVALID_ARGUMENT.
const credentialReason = /^(?:API_KEY_[A-Z_]+|ACCESS_TOKEN_[A-Z_]+|CREDENTIALS_MISSING)$/;
const credentialReasonText =
  /"reason"\s*:\s*"(API_KEY_[A-Z_]+|ACCESS_TOKEN_[A-Z_]+|CREDENTIALS_MISSING)"/;
// The google.rpc.Status JSON (`{"code": 429, "message": …, "status": "RESOURCE_EXHAUSTED"}`)
// as text: @google/genai's ApiError carries the response body as its message.
const statusText = /"status"\s*:\s*"([A-Z_]{2,24})"/;
const codeText = /"code"\s*:\s*\d{3}\b/;

function hasCredentialReason(node: object): boolean {
  const details = readProperty(node, 'details');
  if (!Array.isArray(details)) return false;
  return details
    .slice(0, 16)
    .some((item) => credentialReason.test(readString(item, 'reason') ?? ''));
}

function fromNodes(evidence: FailureEvidence): Verdict | undefined {
  for (const { value } of evidence.nodes) {
    const status = readString(value, 'status');
    const code = readNumber(value, 'code');
    if (status === undefined || code === undefined) continue;
    const known = classifyGoogleRpcCode(status);
    if (!known) continue;
    return hasCredentialReason(value) ? verdict('AUTHORIZATION', 'NOT_AUTHORIZED') : known;
  }
  return undefined;
}

function fromText(messages: readonly string[]): Verdict | undefined {
  for (const message of messages) {
    const name = codeText.test(message) ? statusText.exec(message)?.[1] : undefined;
    const known = name === undefined ? undefined : classifyGoogleRpcCode(name);
    if (!known) continue;
    return credentialReasonText.test(message) ? verdict('AUTHORIZATION', 'NOT_AUTHORIZED') : known;
  }
  return undefined;
}

/**
 * Google APIs' JSON errors (@google/genai, REST clients): the google.rpc `status` name
 * decides, not the HTTP status (FAILED_PRECONDITION is a 400 that means stale state).
 */
export function recogniseGoogleApiError(evidence: FailureEvidence): Verdict | undefined {
  return fromNodes(evidence) ?? fromText(evidence.facts.messages);
}
