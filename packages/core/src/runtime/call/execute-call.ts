import type { ClaimResult, StoredResult } from '../../ledger/ledger.js';
import { recordBudgetOutcome } from '../../policy/retry-budget.js';
import type { Classification, Decision } from '../../types.js';
import type { Call, CallEnding } from './call.js';
import { decideForCall } from './call.js';
import { checkResult } from './check-result.js';
import { engineLeaseMs } from './engine-run.js';
import { handleFailure, resolveClaimedDoubt } from './handle-failure.js';
import { runAttempt } from './run-attempt.js';
import { parseStoredResult } from './serialise-result.js';

const pollMs = 100;

/**
 * One tool call, attempt by attempt. A read runs at once and retries transient faults. A
 * write (or a tool that may write) is claimed in the ledger first, and once an attempt may
 * have landed ("in doubt") nothing is re-sent unless a reconcile proves it did not happen
 * or the downstream dedupes on the key. A failed attempt is decided and acted on in
 * `handle-failure.ts`; the call's state changes only through `Call`'s transitions.
 */
export function executeCall(call: Call): Promise<CallEnding> {
  return call.tool.claims ? executeClaimed(call) : attempt(call);
}

async function executeClaimed(call: Call): Promise<CallEnding> {
  const unkeyed = keyFailure(call);
  if (unkeyed) return unkeyed;
  const claimed = await claimWrite(call);
  if (claimed) return claimed;
  try {
    if (call.inDoubt) {
      const resolved = await resolveClaimedDoubt(call);
      if (resolved) return resolved;
    }
    return await attempt(call);
  } finally {
    // Leaving with the claim still held (a failure, an abort): keep the truth.
    if (call.holdsClaim) await call.settle(call.inDoubt ? 'uncertain' : 'release');
  }
}

/** Attempts until the call ends: a value, or a decision that ends it. */
async function attempt(call: Call): Promise<CallEnding> {
  const { run, request } = call;
  for (;;) {
    // Aborted before this attempt (the caller cancelled, or an engine ended the execution
    // while the call waited): nothing more is sent; a claim not in doubt is let go.
    request.signal?.throwIfAborted();
    call.attempts++;
    if (run.emitter.active)
      call.emit('call.started', { attempt: call.attempts, input: request.input });
    let ending: CallEnding | undefined;
    try {
      const value = await runAttempt(call);
      const rejected = call.tool.policy.check ? checkResult(call, value) : undefined;
      if (!rejected)
        return call.holdsClaim ? await settleSuccess(call, value) : succeeded(call, value);
      ending = await handleFailure(call, rejected.error, rejected.classification);
    } catch (error) {
      // A pause is not a failure: nothing is decided, and the claim is let go below.
      if (request.isPause?.(error) === true) throw error;
      if (isCallerAbort(error, request.signal)) {
        // Cancelled mid-attempt: a write may have landed, so its key stays in doubt.
        call.mayHaveLanded();
        throw error;
      }
      ending = await handleFailure(call, error);
    }
    if (ending) return ending;
  }
}

/** A write's success: its result stored once; a tool that may write just lets go of its claim. */
async function settleSuccess(call: Call, value: unknown): Promise<CallEnding> {
  if (call.tool.effects === 'write') {
    await call.storeResult(value);
  } else {
    // Claimed to keep a doubt, not to deduplicate its successes.
    await call.settle('release');
  }
  return succeeded(call, value);
}

function succeeded(call: Call, value: unknown): CallEnding {
  const { run } = call;
  // A shared budget's answer is not worth waiting for on the success path.
  void recordBudgetOutcome(run.budget, call.tool.dependency, 'success');
  if (run.emitter.active) call.emit('call.succeeded', { attempt: call.attempts, degraded: false });
  return { ok: true, value, deduplicated: false, degraded: false };
}

/**
 * Claims the write's key before anything is sent: undefined when the claim is held (go
 * on), else how the call ends without executing. A completed key answers with the stored
 * result; an in-flight key is waited on (bounded); a store that is unreachable or does not
 * answer within `ledgerTimeoutMs` is retried like any transient fault and, if it stays
 * so, the write is not executed (fail closed).
 */
async function claimWrite(call: Call): Promise<CallEnding | undefined> {
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
        call.claimed(claimed.token, claimed.previous !== undefined);
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
 * The ledger threw or did not answer (`ledgerTimeoutMs`) before anything was sent: a
 * transient fault of the store, asked again after a backoff within the call's attempts.
 * Resolves to undefined to ask again, or to how the call ends once it stays unreachable:
 * `LEDGER_UNAVAILABLE`, never executed (fail closed).
 */
export async function ledgerFault(
  call: Call,
  error: unknown,
  tries: number,
): Promise<CallEnding | undefined> {
  const { run } = call;
  const classification: Classification = {
    failureClass: 'TRANSIENT',
    code: 'LEDGER_UNAVAILABLE',
    message: run.classify(error).message,
  };
  const decision = decideForCall(call, classification, { attempts: tries });
  if (decision.action !== 'RETRY') return call.failed(classification, decision, { error });
  await run.clock.sleep(decision.delayMs ?? 0, call.request.signal);
  return undefined;
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
      call.emit('call.deduplicated', { source: 'ledger', input: call.request.input });
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
  return call.failed(classification, decideForCall(call, classification), { status });
}

/** A policy `key` function that throws: nothing is sent, and the model is told why. */
function keyFailure(call: Call): CallEnding | undefined {
  try {
    void call.key;
    return undefined;
  } catch (error) {
    const classification: Classification = {
      failureClass: 'PERMANENT',
      code: 'KEY_FUNCTION_FAILED',
      message: call.run.classify(error).message,
    };
    const decision: Decision = {
      action: 'ABORT',
      code: 'KEY_FUNCTION_FAILED',
      reason: "the tool's key function threw, so the write has no idempotency key: not sent",
      terminal: true,
    };
    return { ok: false, classification, decision, error, inDoubt: false };
  }
}

function isCallerAbort(error: unknown, signal: AbortSignal | undefined): boolean {
  return (
    signal?.aborted === true &&
    (error === signal.reason || (error instanceof Error && error.name === 'AbortError'))
  );
}
