import { AttemptTimeoutError } from '../../errors.js';
import type { Classification, Decision } from '../../types.js';
import { resourcesOf } from '../access/access-control.js';
import { countFailure, type RetryLoop, repairFacts, resendOrStop } from '../retry-loop.js';
import { denialId } from '../run/run-memory.js';
import type { Call, CallEnding } from './call.js';
import { decideForCall, type MomentFacts } from './call.js';
import { engineLeaseMs } from './engine-run.js';

const settledReason = new Error('reconcile settled');

/**
 * A failed attempt: classified, decided by the policy, acted on (retry after a backoff,
 * reconcile, fallback, or the end of the call). Resolves to how the call ends, or
 * undefined to attempt again (after the decided backoff).
 */
export async function handleFailure(
  call: Call,
  error: unknown,
  known?: Classification | undefined,
): Promise<CallEnding | undefined> {
  const { run, tool } = call;
  const classification = known ?? run.classify(error, { mayWrite: tool.effects !== 'read' });
  if (classification.failureClass === 'UNKNOWN_OUTCOME') call.mayHaveLanded();
  call.firstFailure ??= classification;
  call.failedAt ??= run.clock.now();
  call.emit('failure.classified', { attempt: call.attempts, classification, error });
  await countFailure(loopBudget(call), classification, call.attempts);
  const { fingerprint, repairAttempts, repairsUnknown } = await repairFacts(
    run.memory,
    tool.name,
    call.payloadHash,
    classification,
  );
  let reconciled: 'not_happened' | undefined;
  // Every decision of this failure goes through here: the policy, then the event saying so.
  const decide = (facts: MomentFacts = {}): Decision => {
    const made = decideForCall(call, classification, {
      repairAttempts,
      repairsUnknown,
      reconciled,
      ...facts,
    });
    call.lastDecided = { failureClass: classification.failureClass, action: made.action };
    call.emit('decision.made', {
      attempt: call.attempts,
      decision: made,
      fingerprint,
      repairAttempts,
    });
    return made;
  };
  let decision = decide();
  if (decision.action === 'RECONCILE') {
    const answer = await askReconcile(call);
    if ('invalid' in answer || answer.happened) return settleReconcile(call, answer);
    await settleReconcile(call, answer); // did not happen: no longer in doubt
    reconciled = 'not_happened';
    decision = decide();
  }
  const loop: RetryLoop = {
    ...loopBudget(call),
    decide,
    wait: (delayMs, made) => backOff(call, delayMs, made),
  };
  const answer = await resendOrStop(loop, decision);
  if (answer.resend) return undefined;
  if ('interrupted' in answer) return leaseLost(call);
  switch (answer.decision.action) {
    case 'FALLBACK':
      return useFallback(call, classification, answer.decision);
    default:
      return conclude(call, classification, answer.decision, {
        error,
        fingerprint,
        repairAttempts,
      });
  }
}

/** A tool call spends and asks its dependency's budget. */
function loopBudget(call: Call): Pick<RetryLoop, 'budget' | 'dependency'> {
  return { budget: call.run.budget, dependency: call.tool.dependency };
}

/**
 * Under an engine the claim's lease is stretched to the wait's end first: an execution
 * resumed during the wait finds it in flight and waits out the rest before taking it over.
 */
async function waitUnderEngine(call: Call, delayMs: number): Promise<void> {
  const { run } = call;
  const token = call.claimToken;
  if (token !== undefined && delayMs > 0 && run.ledger.renew) {
    try {
      await run.deadline.bound('renew', run.ledger.renew(call.key, token, delayMs + engineLeaseMs));
    } catch {
      // Not stretched: a resumed execution takes the claim over at once (in doubt, never blind).
    }
  }
  await run.engine?.sleep(delayMs, call.request.signal);
}

/** Waits the decided delay before the next attempt; false once the lease is lost (nothing more is sent). */
async function backOff(call: Call, delayMs: number, decision: Decision): Promise<boolean> {
  const { run } = call;
  call.recoveredBy = decision.action;
  call.emit('retry.scheduled', { attempt: call.attempts, delayMs });
  call.span?.retry(call.attempts, delayMs);
  if (run.engine) await waitUnderEngine(call, delayMs);
  else await run.clock.sleep(delayMs, call.request.signal);
  return !call.leaseLost;
}

/** Another worker took the claim over during the wait: its result will be the result. */
function leaseLost(call: Call): CallEnding {
  const classification: Classification = {
    failureClass: 'UNKNOWN_OUTCOME',
    code: 'LEASE_LOST',
    message: `another worker took over the ${call.tool.name} write`,
  };
  return call.ownedElsewhere(classification, decideForCall(call, classification));
}

/** A decision that ends the call: what it learnt is recorded for the run (repairs, poison, denial). */
async function conclude(
  call: Call,
  classification: Classification,
  decision: Decision,
  details: { error: unknown; fingerprint: string; repairAttempts: number },
): Promise<CallEnding> {
  const { run, tool } = call;
  const at = run.clock.now();
  if (decision.code === 'POISON') {
    // Quarantined before it runs again: this process, other workers, after a restart.
    await run.memory.add('poison', call.operation, {
      operation: call.operation,
      tool: tool.name,
      failureClass: classification.failureClass,
      code: classification.code,
      fingerprint: details.fingerprint,
      at,
    });
  } else if (decision.code === 'AUTHORIZATION_DENIED') {
    // Denied: remember what the call reaches (a tool without resources: everything it
    // may touch), so that no other route reaches it, on any worker, after any restart.
    for (const resource of resourcesOf(tool, call.request.input) ?? [`tool:${tool.name}`]) {
      const denial = {
        resource,
        tool: tool.name,
        reason: classification.code,
        at,
        ...(tool.policy.capability ? { capability: tool.policy.capability } : {}),
      };
      await run.memory.add('denial', denialId(denial), denial);
      if (run.emitter.active)
        run.emitter.emit({ type: 'denial.recorded', runId: run.runId, denial, at });
    }
  } else if (!decision.terminal) {
    await run.memory.addRepair(details.fingerprint);
  }
  return call.failed(classification, decision, {
    error: details.error,
    repairAttempts: details.repairAttempts,
  });
}

/**
 * The declared fallback, used explicitly: the result is marked degraded, never passed off
 * as the primary's. The primary changed nothing (a fallback is never decided for a write
 * in doubt), so its claim is released. A fallback that throws ends the call.
 */
async function useFallback(
  call: Call,
  classification: Classification,
  decision: Decision,
): Promise<CallEnding> {
  const { run, tool, request } = call;
  await call.settle('release');
  let value: unknown;
  try {
    value = await tool.policy.fallback!(request.input, {
      runId: run.runId,
      toolName: tool.name,
      idempotencyKey: call.key,
      classification,
    });
  } catch (error) {
    const failed: Decision = {
      action: 'ABORT',
      code: 'FALLBACK_FAILED',
      reason: `the declared fallback failed too, after: ${decision.reason}`,
      terminal: true,
    };
    return call.failed(run.classify(error), failed, { error });
  }
  call.recoveredBy = 'FALLBACK';
  call.emit('fallback.used', { reason: decision.reason });
  call.emit('call.succeeded', { attempt: call.attempts, degraded: true });
  return {
    ok: true,
    value,
    deduplicated: false,
    degraded: true,
    missingEvidence:
      tool.policy.missingEvidence ?? `${tool.name} (primary unavailable: ${classification.code})`,
  };
}

type ReconcileAnswer =
  | { happened: true; result: unknown }
  | { happened: false }
  | { invalid: Classification; error?: unknown };

/**
 * Asks the tool's `reconcile` what happened downstream. Only the two documented answers
 * count — `{ happened: true, result? }` and `{ happened: false }` with a real boolean —
 * anything else (`true`, `'yes'`, `{ happend: true }`, a throw) proves nothing, so the
 * write stays in doubt and is never re-sent.
 */
async function askReconcile(call: Call): Promise<ReconcileAnswer> {
  const { run, tool, request } = call;
  const limitMs = tool.timeoutMs;
  const stop = new AbortController();
  let answer: unknown;
  try {
    const read = Promise.resolve(
      tool.policy.reconcile!(request.input, {
        runId: run.runId,
        toolName: tool.name,
        idempotencyKey: call.key,
      }),
    );
    read.catch(() => {}); // an abandoned read must not become an unhandled rejection
    // With a deadline (the tool's `timeoutMs`), a read that never settles cannot hang the
    // run: past the deadline it proves nothing.
    const expired =
      limitMs === undefined
        ? undefined
        : run.clock.sleep(limitMs, stop.signal).then(
            () => {
              throw new AttemptTimeoutError(`${tool.name} reconcile`, limitMs);
            },
            () => undefined,
          );
    answer = await (expired ? Promise.race([read, expired]) : read);
  } catch (error) {
    const read = run.classify(error);
    // Whatever the read's own failure was, what it leaves is a write in doubt.
    return {
      invalid: { ...read, failureClass: 'UNKNOWN_OUTCOME', code: 'RECONCILE_FAILED' },
      error,
    };
  } finally {
    stop.abort(settledReason);
  }
  const happened =
    typeof answer === 'object' && answer !== null
      ? (answer as { happened?: unknown }).happened
      : undefined;
  if (happened === true) return { happened: true, result: (answer as { result?: unknown }).result };
  if (happened === false) return { happened: false };
  return {
    invalid: {
      failureClass: 'UNKNOWN_OUTCOME',
      code: 'RECONCILE_FAILED',
      message: `reconcile answered ${describe(answer)}; expected { happened: true, result? } or { happened: false }`,
    },
  };
}

/**
 * Acts on a reconcile answer: happened → the stored result (nothing re-sent); invalid →
 * the call ends in doubt; did not happen → undefined, and the write is no longer in doubt.
 */
async function settleReconcile(
  call: Call,
  answer: ReconcileAnswer,
): Promise<CallEnding | undefined> {
  call.emit('reconcile.finished', { happened: 'invalid' in answer ? 'invalid' : answer.happened });
  if ('invalid' in answer) {
    const decision = decideForCall(call, answer.invalid, { reconciled: 'failed' });
    return call.failed(answer.invalid, decision, { error: answer.error });
  }
  if (!answer.happened) {
    call.provedNotLanded();
    return undefined;
  }
  await call.storeResult(answer.result);
  call.emit('call.deduplicated', { source: 'reconcile' });
  call.recoveredBy = 'RECONCILE';
  return {
    ok: true,
    value: answer.result,
    deduplicated: true,
    degraded: false,
  };
}

/**
 * The claim found an earlier attempt that may have written (a dead worker, an uncertain
 * record): prove it either way, replay behind the same key, or stop before sending.
 */
export async function resolveClaimedDoubt(call: Call): Promise<CallEnding | undefined> {
  const classification: Classification = {
    failureClass: 'UNKNOWN_OUTCOME',
    code: 'IN_DOUBT',
    message: `an earlier ${call.tool.name} attempt may have landed`,
  };
  const decision = decideForCall(call, classification);
  if (decision.action === 'RECONCILE') return settleReconcile(call, await askReconcile(call));
  if (decision.action === 'REPLAY') return undefined; // the downstream dedupes on the key
  return call.failed(classification, decision);
}

function describe(answer: unknown): string {
  if (answer === undefined) return 'nothing';
  try {
    const text = JSON.stringify(answer);
    return text === undefined ? typeof answer : text.slice(0, 80);
  } catch {
    return `a ${typeof answer}`;
  }
}
