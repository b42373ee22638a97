import { recordBudgetOutcome } from '../../policy/retry-budget.js';
import type { Classification, Decision } from '../../types.js';
import type { Call } from './call.js';
import type { CallEnding } from './call-ending.js';
import { checkResult } from './check-result.js';
import { claimWrite } from './claim-write.js';
import { handleFailure } from './handle-failure.js';
import { resolveClaimedDoubt } from './resolve-doubt.js';
import { runAttempt } from './run-attempt.js';
import { completeWithResult } from './store-result.js';

/**
 * One tool call, attempt by attempt. A read runs at once and retries transient faults. A
 * write (or a tool that may write) is claimed in the ledger first, and once an attempt may
 * have landed ("in doubt") nothing is re-sent unless a reconcile proves it did not happen
 * or the downstream dedupes on the key.
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
    if (call.token !== undefined) await call.settle(call.inDoubt ? 'uncertain' : 'release');
  }
}

/** Attempts until the call ends: a value, or a decision that ends it. */
async function attempt(call: Call): Promise<CallEnding> {
  const { run, request } = call;
  for (;;) {
    call.attempts++;
    if (run.emitter.active)
      call.emit('call.started', { attempt: call.attempts, input: request.input });
    let ending: CallEnding | undefined;
    try {
      const value = await runAttempt(call);
      const rejected = call.tool.policy.check ? checkResult(call, value) : undefined;
      if (!rejected)
        return call.token === undefined ? succeeded(call, value) : await settleSuccess(call, value);
      ending = await handleFailure(call, rejected.error, rejected.classification);
    } catch (error) {
      // A pause is not a failure: nothing is decided, and the claim is let go below.
      if (request.isPause?.(error) === true) throw error;
      if (isCallerAbort(error, request.signal)) {
        // Cancelled mid-attempt: a write may have landed, so its key stays in doubt.
        if (call.tool.claims) call.inDoubt = true;
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
    await completeWithResult(call, value);
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
