import { computeBackoff } from '../policy/backoff.js';
import { decideRecovery } from '../policy/decide-recovery.js';
import { canRetryWithin, recordBudgetOutcome } from '../policy/retry-budget.js';
import type { Classification, Decision } from '../types.js';
import { acquireClaim } from './acquire-claim.js';
import { runInCallContext } from './call-context.js';
import {
  abortDecision,
  failCall,
  isOutageAbort,
  leaseLostFailure,
  useFallback,
} from './call-failure.js';
import { type CallEnvironment, type CallScope, createCallScope, toJson } from './call-scope.js';
import { resolveDoubt } from './resolve-doubt.js';
import type { ToolCallResult } from './tool-call.js';

export type { CallEnvironment } from './call-scope.js';

/**
 * One tool call, attempt by attempt. Reads retry transient faults. Writes are claimed in
 * the ledger first, and once an attempt may have landed ("in doubt") nothing is re-sent
 * unless a reconcile proves it did not happen or the downstream dedupes on the key.
 */
export async function executeCall(env: CallEnvironment): Promise<ToolCallResult> {
  let token: string | undefined;
  let inDoubt = false;
  if (env.policy.sideEffects === true) {
    const acquired = await acquireClaim(env);
    if (acquired.kind === 'done') return acquired.result;
    token = acquired.claim.token;
    inDoubt = acquired.inDoubt;
  }
  const scope = createCallScope(env, token, inDoubt);
  try {
    if (scope.inDoubt) {
      const resolved = await resolveDoubt(scope);
      if (resolved.kind === 'done') return resolved.result;
      scope.inDoubt = false;
    }
    for (let attempt = 1; ; attempt++) {
      const result = await attemptOnce(scope, attempt);
      if (result) return result;
      if (scope.leaseLost()) return leaseLostFailure(scope);
    }
  } finally {
    // Leaving with the claim still held (an abort, a throwing listener): keep the truth.
    await scope.settle(scope.inDoubt ? 'uncertain' : 'release');
  }
}

/** One attempt: the call's result, or undefined to attempt again. */
async function attemptOnce(scope: CallScope, attempt: number): Promise<ToolCallResult | undefined> {
  const { env } = scope;
  const { request, key } = env;
  const tool = request.toolName;
  const dependency = env.policy.dependency ?? tool;
  env.emit({ ...scope.base(), type: 'call.started', attempt, input: request.input });
  let value: unknown;
  try {
    value = await runInCallContext(
      {
        runId: env.runId,
        toolName: tool,
        toolCallId: request.toolCallId,
        idempotencyKey: key,
        attempt,
      },
      () => request.execute(request.input),
    );
  } catch (error) {
    if (isCallerAbort(error, request.signal)) throw error;
    return handleFailure(scope, attempt, error);
  }
  await recordBudgetOutcome(env.budget, dependency, 'success');
  await scope.settle('complete', () => toJson(value));
  env.state.recordSuccess(tool);
  env.emit({ ...scope.base(), type: 'call.succeeded', attempt, degraded: false });
  return { ok: true, value, deduplicated: false, degraded: false };
}

/** Classifies a failed attempt, decides, and acts: undefined to attempt again. */
async function handleFailure(
  scope: CallScope,
  attempt: number,
  error: unknown,
): Promise<ToolCallResult | undefined> {
  const { env } = scope;
  const { policy, request } = env;
  const dependency = policy.dependency ?? request.toolName;
  const write = policy.sideEffects === true;
  const classification = env.classify(error, { sideEffects: write });
  if (write && classification.failureClass === 'UNKNOWN_OUTCOME') scope.inDoubt = true;
  env.emit({ ...scope.base(), type: 'failure.classified', attempt, classification, error });
  // Only failures a retry could fix spend the dependency's budget (gRPC throttling): a
  // 422 or a 403 says nothing about the dependency's health.
  const transient = classification.failureClass === 'TRANSIENT';
  if (transient) await recordBudgetOutcome(env.budget, dependency, 'failure');
  // Asked only when a retry is in question: a shared budget costs a round trip.
  const budgetExhausted = transient && !(await canRetryWithin(env.budget, dependency));
  const fingerprint = env.fingerprint(classification);
  const counter = `repair:${fingerprint}`;
  const repairAttempts = await env.ledger.getCounter(env.runId, counter).catch(() => 0);
  const decision = decide(scope, classification, attempt, repairAttempts, budgetExhausted);
  env.emit({
    ...scope.base(),
    type: 'decision.made',
    attempt,
    decision,
    fingerprint,
    repairAttempts,
  });

  switch (decision.action) {
    case 'RETRY':
      env.emit({
        ...scope.base(),
        type: 'retry.scheduled',
        attempt,
        delayMs: decision.delayMs ?? 0,
      });
      await env.clock.sleep(decision.delayMs ?? 0, request.signal);
      return undefined;
    case 'RECONCILE':
    case 'REPLAY': {
      if (decision.action === 'RECONCILE') {
        const resolved = await resolveDoubt(scope);
        if (resolved.kind === 'done') return resolved.result;
        scope.inDoubt = false; // proven not to have happened: safe to send again
      }
      if (attempt >= env.maxAttempts) {
        const spent = abortDecision(
          'RETRY_BUDGET_SPENT',
          'the write could not be completed within its attempts',
        );
        return failCall(scope, classification, spent, {
          attempts: attempt,
          inDoubt: scope.inDoubt,
          error,
        });
      }
      const wait = computeBackoff(attempt, env.backoff, env.random, classification.retryAfterMs);
      await env.clock.sleep(wait.retry ? wait.delayMs : 0, request.signal);
      return undefined;
    }
    default:
      if (
        decision.action === 'FALLBACK' ||
        (isOutageAbort(decision) && policy.fallback && !scope.inDoubt)
      ) {
        return useFallback(scope, classification, decision);
      }
      if (!decision.terminal) await env.ledger.incrementCounter(env.runId, counter).catch(() => 0);
      return failCall(scope, classification, decision, {
        attempts: attempt,
        inDoubt: scope.inDoubt,
        error,
        repairAttempts,
      });
  }
}

function decide(
  scope: CallScope,
  classification: Classification,
  attempt: number,
  repairAttempts: number,
  budgetExhausted: boolean,
): Decision {
  const { env } = scope;
  const { policy } = env;
  return decideRecovery(
    {
      tool: env.request.toolName,
      failureClass: classification.failureClass,
      sideEffects: scope.inDoubt,
      checkpoint: policy.idempotent ? env.key : undefined,
      reconcilable: policy.reconcile !== undefined,
      hasFallback: policy.fallback !== undefined,
      attempts: attempt,
      repairAttempts,
      retryAfterMs: classification.retryAfterMs,
      retryBudgetExhausted: budgetExhausted,
    },
    {
      maxAttempts: env.maxAttempts,
      repairBudget: env.repairBudget,
      backoff: env.backoff,
      random: env.random,
    },
  );
}

function isCallerAbort(error: unknown, signal: AbortSignal | undefined): boolean {
  return (
    signal?.aborted === true &&
    (error === signal.reason || (error instanceof Error && error.name === 'AbortError'))
  );
}
