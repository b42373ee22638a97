import { recordBudgetOutcome } from '../../policy/retry-budget.js';
import type { Classification } from '../../types.js';
import type { Call } from './call.js';
import type { CallEnding } from './call-ending.js';
import { claimWrite } from './claim-write.js';
import { handleFailure } from './handle-failure.js';
import { resolveClaimedDoubt } from './resolve-doubt.js';
import { runAttempt } from './run-attempt.js';
import { serialiseResult } from './serialise-result.js';

/**
 * One tool call, attempt by attempt. A read runs at once and retries transient faults. A
 * write (or a tool that may write) is claimed in the ledger first, and once an attempt may
 * have landed ("in doubt") nothing is re-sent unless a reconcile proves it did not happen
 * or the downstream dedupes on the key.
 */
export async function executeCall(call: Call): Promise<CallEnding> {
  if (call.tool.claims) {
    const claimed = await claimWrite(call);
    if (claimed) return claimed;
  }
  try {
    if (call.inDoubt) {
      const resolved = await resolveClaimedDoubt(call);
      if (resolved) return resolved;
    }
    for (;;) {
      const ending = await attemptOnce(call);
      if (ending) return ending;
    }
  } finally {
    // Leaving with the claim still held (a failure, an abort): keep the truth.
    if (call.token !== undefined) await call.settle(call.inDoubt ? 'uncertain' : 'release');
  }
}

/** One attempt: how the call ends, or undefined to attempt again. */
async function attemptOnce(call: Call): Promise<CallEnding | undefined> {
  const { run, request } = call;
  call.attempts++;
  if (run.emitter.active) {
    run.emitter.emit({
      ...call.base(),
      type: 'call.started',
      attempt: call.attempts,
      input: request.input,
    });
  }
  let value: unknown;
  try {
    value = await runAttempt(call);
  } catch (error) {
    if (isCallerAbort(error, request.signal)) throw error;
    return handleFailure(call, error);
  }
  const rejected = checkResult(call, value);
  if (rejected) return handleFailure(call, rejected.error, rejected.classification);
  return succeed(call, value);
}

async function succeed(call: Call, value: unknown): Promise<CallEnding> {
  const { run, tool } = call;
  // A shared budget's answer is not worth waiting for on the success path.
  void recordBudgetOutcome(run.budget, tool.dependency, 'success');
  if (call.token !== undefined) {
    if (tool.effects === 'write') {
      const stored = serialiseResult(value);
      await call.settle('complete', stored);
      if (stored.unstorable !== undefined && run.emitter.active) {
        run.emitter.emit({ ...call.base(), type: 'result.unstorable', reason: stored.unstorable });
      }
    } else {
      // A tool that may write is claimed to keep a doubt, not to deduplicate its successes.
      await call.settle('release');
    }
  }
  if (run.emitter.active) {
    run.emitter.emit({
      ...call.base(),
      type: 'call.succeeded',
      attempt: call.attempts,
      degraded: false,
    });
  }
  return {
    ok: true,
    value,
    deduplicated: false,
    degraded: false,
    ...(tool.effects === 'write' ? { operation: call.key } : {}),
  };
}

/** The policy's `check` of a returned value, as a failure to classify; a throwing check counts too. */
function checkResult(
  call: Call,
  value: unknown,
): { error: unknown; classification: Classification } | undefined {
  const check = call.tool.policy.check;
  if (!check) return undefined;
  let verdict: ReturnType<typeof check>;
  try {
    verdict = check(value, call.request.input);
  } catch (error) {
    return {
      error,
      classification: call.run.classify(error, { sideEffects: call.tool.effects !== 'read' }),
    };
  }
  if (verdict === undefined || verdict === null) return undefined;
  const classification: Classification = {
    failureClass: verdict.failureClass ?? 'VALIDATION',
    code: typeof verdict.code === 'string' && verdict.code ? verdict.code : 'CHECK_FAILED',
    message: call.run.classify(new Error(String(verdict.message))).message,
  };
  return { error: verdict, classification };
}

function isCallerAbort(error: unknown, signal: AbortSignal | undefined): boolean {
  return (
    signal?.aborted === true &&
    (error === signal.reason || (error instanceof Error && error.name === 'AbortError'))
  );
}
