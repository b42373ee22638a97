import type { ClaimResult, StoredResult } from '../../ledger/ledger.js';
import type { Classification } from '../../types.js';
import type { Call } from './call.js';
import type { CallEnding } from './call-ending.js';
import { decideForCall } from './decide-for-call.js';
import { engineLeaseMs } from './engine-run.js';
import { failure } from './fail-call.js';
import { ledgerFault } from './ledger-fault.js';
import { parseStoredResult } from './serialise-result.js';

const pollMs = 100;

/**
 * Claims the write's key before anything is sent: undefined when the claim is held (go
 * on), else how the call ends without executing. A completed key answers with the stored
 * result; an in-flight key is waited on (bounded); a store that is unreachable or does not
 * answer within `ledgerTimeoutMs` is retried like any transient fault and, if it stays
 * so, the write is not executed (fail closed).
 */
export async function claimWrite(call: Call): Promise<CallEnding | undefined> {
  const { run, request } = call;
  const { engine } = run;
  const waitUntil = run.clock.now() + run.inFlightWaitMs;
  for (let tries = 1; ; ) {
    let claimed: ClaimResult;
    try {
      claimed =
        engine?.held.has(call.key) === true
          ? { status: 'in_flight', leaseExpiresAt: waitUntil }
          : await run.deadline.bound(
              'claim',
              run.ledger.claim({
                key: call.key,
                payloadHash: call.payloadHash,
                ...(engine ? { leaseMs: engineLeaseMs } : {}),
              }),
              releaseLate,
              call,
            );
    } catch (error) {
      // Whatever the store threw, or its silence, nothing was sent: a fault of the ledger.
      const ended = await ledgerFault(call, error, tries);
      if (ended) return ended;
      tries++;
      continue;
    }
    switch (claimed.status) {
      case 'acquired':
        call.token = claimed.token;
        // Under an engine the claim is never renewed: this execution is the only one.
        if (engine) engine.held.add(call.key);
        else call.lease = run.renewer.hold(call.key, claimed.token);
        call.inDoubt = claimed.previous !== undefined;
        return undefined;
      case 'completed':
        return duplicate(call, claimed.result);
      case 'conflict':
        return ownedElsewhere(
          call,
          'PERMANENT',
          'IDEMPOTENCY_CONFLICT',
          `key ${call.key} was used with a different payload`,
        );
      case 'in_flight': {
        if (engine && !engine.held.has(call.key)) {
          // An earlier execution's claim kept for its wait: the rest is waited out, then
          // the claim is taken over.
          await engine.sleep(Math.max(1, claimed.leaseExpiresAt - run.clock.now()), request.signal);
          continue;
        }
        const remaining = waitUntil - run.clock.now();
        if (remaining > 0) {
          await run.clock.sleep(Math.min(pollMs, remaining), request.signal);
          continue;
        }
        call.emit('call.in-flight', {});
        return ownedElsewhere(
          call,
          'UNKNOWN_OUTCOME',
          'IN_FLIGHT',
          `the same ${call.tool.name} operation is in flight elsewhere`,
          'IN_FLIGHT',
        );
      }
    }
  }
}

/**
 * A claim the store granted after the runtime stopped waiting for it: nothing ran under
 * it, so it is given back at once rather than left to expire into a doubt.
 */
function releaseLate(late: ClaimResult, call: Call): void {
  if (late.status !== 'acquired') return;
  const { ledger, deadline } = call.run;
  void deadline.bound('release', ledger.release(call.key, late.token)).catch(() => {});
}

/** The operation completed before: its stored result, never a second execution. */
function duplicate(call: Call, result: StoredResult): CallEnding {
  if (result.unstorable === undefined) {
    try {
      const value = parseStoredResult(result);
      call.emit('call.deduplicated', { source: 'ledger' });
      return { ok: true, value, deduplicated: true, degraded: false };
    } catch {
      // Unreadable text from the store: as good as not stored.
    }
  }
  return ownedElsewhere(
    call,
    'UNKNOWN_OUTCOME',
    'RESULT_NOT_STORED',
    `the ${call.tool.name} operation completed, but its result was not stored (${result.unstorable ?? 'unreadable'})`,
  );
}

function ownedElsewhere(
  call: Call,
  failureClass: Classification['failureClass'],
  code: 'IDEMPOTENCY_CONFLICT' | 'IN_FLIGHT' | 'RESULT_NOT_STORED',
  message: string,
  status?: 'IN_FLIGHT',
): CallEnding {
  const classification: Classification = { failureClass, code, message };
  return failure(call, classification, decideForCall(call, classification), { status });
}
