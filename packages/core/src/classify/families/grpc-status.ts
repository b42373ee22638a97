import type { FailureEvidence } from '../failure-evidence.js';
import { readNumber, readProperty, readString } from '../safe-read.js';
import { transient, type Verdict, verdict } from '../verdict.js';
import { classifyGoogleRpcCode, grpcCodeName } from './google-rpc-code.js';

// @grpc/grpc-js formats these into UNAVAILABLE's details; they say whether the call got
// onto a connection at all.
const unsentDetails = /No connection established|ECONNREFUSED|connection refused/i;
const unresolvedDetails = /Name resolution failed|ENOTFOUND|EAI_AGAIN|getaddrinfo/i;
const droppedDetails = /Connection dropped|ECONNRESET|RST_STREAM|socket hang ?up/i;

function refine(name: string, details: string): Verdict | undefined {
  if (name === 'UNAVAILABLE') {
    if (unresolvedDetails.test(details)) return transient('DNS_FAILURE');
    if (unsentDetails.test(details)) return transient('CONNECTION_REFUSED');
    if (droppedDetails.test(details)) return transient('CONNECTION_RESET', true);
  }
  if (name === 'RESOURCE_EXHAUSTED') {
    // The client's own size check, before anything is sent: the request must shrink.
    if (/Sent message larger than max/i.test(details))
      return verdict('VALIDATION', 'INVALID_INPUT');
    // The server answered, with more than the client accepts.
    if (/Received message larger than max/i.test(details)) {
      return { ...verdict('PERMANENT', 'RESPONSE_TOO_LARGE'), ambiguous: true };
    }
  }
  return classifyGoogleRpcCode(name);
}

function isStatusError(node: object, code: number): boolean {
  if (!Number.isInteger(code) || code < 1 || code > 16) return false;
  const metadata = readProperty(node, 'metadata');
  return (
    readString(node, 'details') !== undefined || (typeof metadata === 'object' && metadata !== null)
  );
}

/**
 * gRPC status errors (`@grpc/grpc-js` ServiceError, google-gax, Connect): a numeric
 * `code` with `details` or `metadata`, read through the google.rpc code table.
 */
export function recogniseGrpcStatus(evidence: FailureEvidence): Verdict | undefined {
  for (const { value, payload } of evidence.nodes) {
    if (payload) continue;
    const code = readNumber(value, 'code');
    if (code === undefined || !isStatusError(value, code)) continue;
    const name = grpcCodeName(code);
    if (name === undefined) continue;
    const details = readString(value, 'details') ?? readString(value, 'message') ?? '';
    return refine(name, details.slice(0, 2000));
  }
  return undefined;
}
