import type { FailureEvidence } from '../failure-evidence.js';
import { readString } from '../safe-read.js';
import { transient, type Verdict } from '../verdict.js';

// got's TimeoutError names the phase that ran out (`event`); these end before the first
// byte of the request is written.
const unsentEvents = new Set(['lookup', 'connect', 'secureConnect']);
// @smithy/node-http-handler's connection timeout (the AWS SDK v3).
const unsentText = /did not establish a connection|without establishing a connection/i;

/**
 * Timeouts that say where they happened. One that ran out while connecting is TRANSIENT
 * even for a write; the rest stay with the generic timeout rule (ambiguous).
 */
export function recogniseTimeoutPhase(evidence: FailureEvidence): Verdict | undefined {
  for (const { value, payload } of evidence.nodes) {
    if (payload || readString(value, 'name') !== 'TimeoutError') continue;
    const event = readString(value, 'event');
    if (event !== undefined) return transient('TIMEOUT', !unsentEvents.has(event));
    if (unsentText.test(readString(value, 'message') ?? '')) return transient('TIMEOUT');
  }
  return undefined;
}
