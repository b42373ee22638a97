import { failureFingerprint } from '../../policy/fingerprint.js';
import { canRetryWithin, recordBudgetOutcome, retryInMsOf } from '../../policy/retry-budget.js';
import type { Classification, Decision } from '../../types.js';
import { resourcesOf } from '../access/access-control.js';
import { denialId } from '../run/run-memory.js';
import type { Call } from './call.js';
import type { CallEnding } from './call-ending.js';
import { decideForCall, type MomentFacts } from './decide-for-call.js';
import { engineLeaseMs } from './engine-run.js';
import { failure } from './fail-call.js';
import { askReconcile, settleReconcile } from './resolve-doubt.js';
import { useFallback } from './use-fallback.js';

/**
 * A failed attempt: classified, decided by the policy, acted on. Resolves to how the call
 * ends, or undefined to attempt again (after the decided backoff).
 */
export async function handleFailure(
  call: Call,
  error: unknown,
  known?: Classification | undefined,
): Promise<CallEnding | undefined> {
  const { run, tool } = call;
  const classification = known ?? run.classify(error, { sideEffects: tool.effects !== 'read' });
  if (tool.claims && classification.failureClass === 'UNKNOWN_OUTCOME') call.inDoubt = true;
  call.firstFailure ??= classification;
  call.failedAt ??= run.clock.now();
  call.emit('failure.classified', { attempt: call.attempts, classification, error });
  // Only failures a retry could fix spend the dependency's budget (a 422 or a 403 says
  // nothing about its health). The budget is asked when a retry is about to be sent.
  if (classification.failureClass === 'TRANSIENT') {
    await recordBudgetOutcome(
      run.budget,
      tool.dependency,
      call.attempts > 1 ? 'retry-failure' : 'failure',
    );
  }
  const fingerprint = failureFingerprint({
    tool: tool.name,
    input: call.payloadHash,
    classification,
  });
  const stored = await run.memory.repairs(fingerprint);
  const repairAttempts = stored ?? 0;
  const repairsUnknown = stored === undefined;
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
  for (;;) {
    if (decision.action !== 'RETRY' && decision.action !== 'REPLAY') break;
    const lost = await backOff(call, decision);
    if (lost) return lost;
    // Sent only if the dependency's budget lets it through now (or this is its probe);
    // refused, the policy says whether to wait for the next probe or to stop.
    if (await canRetryWithin(run.budget, tool.dependency)) return undefined;
    const retryBudgetWaitMs = await retryInMsOf(run.budget, tool.dependency);
    decision = decide({ retryBudgetExhausted: true, retryBudgetWaitMs });
  }
  switch (decision.action) {
    case 'FALLBACK':
      return useFallback(call, classification, decision);
    default:
      return conclude(call, classification, decision, { error, fingerprint, repairAttempts });
  }
}

/** Waits the decided delay before the next attempt; nothing more is sent once the lease is lost. */
async function backOff(call: Call, decision: Decision): Promise<CallEnding | undefined> {
  const { run } = call;
  const delayMs = decision.delayMs ?? 0;
  call.recoveredBy = decision.action;
  call.emit('retry.scheduled', { attempt: call.attempts, delayMs });
  call.span?.retry(call.attempts, delayMs);
  if (run.engine) await waitUnderEngine(call, delayMs);
  else await run.clock.sleep(delayMs, call.request.signal);
  if (!call.lease?.lost) return undefined;
  const classification: Classification = {
    failureClass: 'UNKNOWN_OUTCOME',
    code: 'LEASE_LOST',
    message: `another worker took over the ${call.tool.name} write`,
  };
  return failure(call, classification, decideForCall(call, classification), {
    status: 'IN_FLIGHT',
  });
}

/**
 * Under an engine the claim's lease is stretched to the wait's end first: an execution
 * resumed during the wait finds it in flight and waits out the rest before taking it over.
 */
async function waitUnderEngine(call: Call, delayMs: number): Promise<void> {
  const { run, token } = call;
  if (token !== undefined && delayMs > 0 && run.ledger.renew) {
    try {
      await run.deadline.bound('renew', run.ledger.renew(call.key, token, delayMs + engineLeaseMs));
    } catch {
      // Not stretched: a resumed execution takes the claim over at once (in doubt, never blind).
    }
  }
  await run.engine?.sleep(delayMs, call.request.signal);
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
  return failure(call, classification, decision, {
    error: details.error,
    repairAttempts: details.repairAttempts,
  });
}
