import type { Clock, RandomSource } from '../clock.js';
import type { Ledger } from '../ledger/ledger.js';
import { computeBackoff, type ResolvedBackoff } from '../policy/backoff.js';
import { decideRecovery } from '../policy/decide-recovery.js';
import type { RetryBudget } from '../policy/retry-budget.js';
import type { Classification, Decision, JsonValue } from '../types.js';
import { acquireClaim, type HeldClaim } from './acquire-claim.js';
import { runInCallContext } from './call-context.js';
import type { RecoveryEvent } from './events.js';
import { type LeaseHeartbeat, startLeaseHeartbeat } from './lease-heartbeat.js';
import type { ToolPolicy } from './options.js';
import { buildContract } from './recovery-contract.js';
import type { ToolCallFailure, ToolCallRequest, ToolCallResult } from './recovery-runtime.js';
import type { RunState } from './run-state.js';

export interface CallEnvironment {
  runId: string;
  request: ToolCallRequest;
  policy: ToolPolicy;
  key: string;
  payloadHash: string;
  ledger: Ledger;
  clock: Clock;
  random: RandomSource;
  emit: (event: RecoveryEvent) => void;
  classify: (error: unknown, hints?: { sideEffects?: boolean | undefined }) => Classification;
  budget: RetryBudget | undefined;
  backoff: ResolvedBackoff;
  state: RunState;
  maxAttempts: number;
  repairBudget: number;
  inFlightWaitMs: number;
  fingerprint: (classification: Classification) => string;
}

/**
 * One tool call, attempt by attempt. Reads retry transient faults. Writes are claimed in
 * the ledger first, and once an attempt may have landed ("in doubt") nothing is re-sent
 * unless a reconcile proves it did not happen or the downstream dedupes on the key.
 */
export async function executeCall(env: CallEnvironment): Promise<ToolCallResult> {
  const { request, policy, key, ledger, clock, state } = env;
  const tool = request.toolName;
  const base = () => ({
    runId: env.runId,
    tool,
    toolCallId: request.toolCallId,
    idempotencyKey: key,
    at: clock.now(),
  });
  const write = policy.sideEffects === true;
  const dependency = policy.dependency ?? tool;

  let claim: HeldClaim | undefined;
  let heartbeat: LeaseHeartbeat | undefined;
  let inDoubt = false;
  if (write) {
    const acquired = await acquireClaim(env);
    if (acquired.kind === 'done') return acquired.result;
    claim = acquired.claim;
    inDoubt = acquired.inDoubt;
    // Renew the lease for as long as the claim is held (executes, backoffs, reconcile
    // reads): a write slower than one lease must not be taken over while it still runs.
    heartbeat = startLeaseHeartbeat({ ledger, key, token: claim.token, clock });
  }
  const settle = async (how: 'complete' | 'release' | 'uncertain', value?: () => JsonValue) => {
    if (!claim) return; // a read: nothing was claimed
    const held = claim;
    claim = undefined;
    heartbeat?.stop();
    try {
      if (how === 'complete') await ledger.complete(key, held.token, value ? value() : null);
      else if (how === 'release') await ledger.release(key, held.token);
      else await ledger.markUncertain(key, held.token, `${tool}: outcome unknown`);
    } catch {
      // Lease lost (expected when `heartbeat.lost`: a renewal was refused, another
      // worker owns the key) or store down: the record stays in flight, expires, and the
      // next claimer sees `previous: 'expired'` and reconciles. Never a silent re-send.
    }
  };

  try {
    if (inDoubt) {
      const resolved = await resolveDoubt(env, base, settle);
      if (resolved.kind === 'done') return resolved.result;
      inDoubt = false;
    }
    for (let attempt = 1; ; attempt++) {
      env.emit({ ...base(), type: 'call.started', attempt, input: request.input });
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
        const classification = env.classify(error, { sideEffects: write });
        if (write && classification.failureClass === 'UNKNOWN_OUTCOME') inDoubt = true;
        env.emit({ ...base(), type: 'failure.classified', attempt, classification, error });
        // Only failures a retry could fix spend the dependency's budget (gRPC throttling):
        // a 422 or 403 says nothing about the dependency's health.
        if (classification.failureClass === 'TRANSIENT') env.budget?.recordFailure(dependency);
        const fingerprint = env.fingerprint(classification);
        const counter = `repair:${fingerprint}`;
        const repairAttempts = await ledger.getCounter(env.runId, counter).catch(() => 0);
        const decision = decideRecovery(
          {
            tool,
            failureClass: classification.failureClass,
            sideEffects: inDoubt,
            checkpoint: policy.idempotent ? key : undefined,
            reconcilable: policy.reconcile !== undefined,
            hasFallback: policy.fallback !== undefined,
            attempts: attempt,
            repairAttempts,
            retryAfterMs: classification.retryAfterMs,
            retryBudgetExhausted: env.budget ? !env.budget.canRetry(dependency) : false,
          },
          {
            maxAttempts: env.maxAttempts,
            repairBudget: env.repairBudget,
            backoff: env.backoff,
            random: env.random,
          },
        );
        env.emit({
          ...base(),
          type: 'decision.made',
          attempt,
          decision,
          fingerprint,
          repairAttempts,
        });

        if (decision.action === 'RETRY') {
          env.emit({ ...base(), type: 'retry.scheduled', attempt, delayMs: decision.delayMs ?? 0 });
          await clock.sleep(decision.delayMs ?? 0, request.signal);
          continue;
        }
        if (decision.action === 'REPLAY' || decision.action === 'RECONCILE') {
          if (decision.action === 'RECONCILE') {
            const resolved = await resolveDoubt(env, base, settle);
            if (resolved.kind === 'done') return resolved.result;
            inDoubt = false;
          }
          if (attempt < env.maxAttempts) {
            const wait = computeBackoff(
              attempt,
              env.backoff,
              env.random,
              classification.retryAfterMs,
            );
            await clock.sleep(wait.retry ? wait.delayMs : 0, request.signal);
            continue;
          }
          return fail(
            env,
            base,
            settle,
            classification,
            abortDecision(
              'RETRY_BUDGET_SPENT',
              'the write could not be completed within its attempts',
            ),
            attempt,
            inDoubt,
            error,
          );
        }
        if (
          decision.action === 'FALLBACK' ||
          (isOutageAbort(decision) && policy.fallback && !inDoubt)
        ) {
          await settle('release');
          return useFallback(env, base, classification, decision);
        }
        if (!decision.terminal) await ledger.incrementCounter(env.runId, counter).catch(() => 0);
        return fail(
          env,
          base,
          settle,
          classification,
          decision,
          attempt,
          inDoubt,
          error,
          repairAttempts,
        );
      }
      env.budget?.recordSuccess(dependency);
      await settle('complete', () => toJson(value));
      state.recordSuccess(tool);
      env.emit({ ...base(), type: 'call.succeeded', attempt, degraded: false });
      return { ok: true, value, deduplicated: false, degraded: false };
    }
  } finally {
    // Leaving with the claim still held (an abort, a throwing listener): keep the truth.
    await settle(inDoubt ? 'uncertain' : 'release');
  }
}

type Settle = (how: 'complete' | 'release' | 'uncertain', value?: () => JsonValue) => Promise<void>;
type Base = () => {
  runId: string;
  tool: string;
  toolCallId: string;
  idempotencyKey: string;
  at: number;
};

/** The previous attempt may have written. Prove it either way, or stop. */
async function resolveDoubt(
  env: CallEnvironment,
  base: Base,
  settle: Settle,
): Promise<{ kind: 'done'; result: ToolCallResult } | { kind: 'proceed' }> {
  const { policy, request, key } = env;
  const tool = request.toolName;
  if (policy.reconcile) {
    try {
      const found = await policy.reconcile(request.input, {
        runId: env.runId,
        toolName: tool,
        idempotencyKey: key,
      });
      env.emit({ ...base(), type: 'reconcile.finished', happened: found.happened });
      if (!found.happened) return { kind: 'proceed' };
      const value = found.result ?? null;
      await settle('complete', () => toJson(value));
      env.state.recordSuccess(tool);
      env.emit({ ...base(), type: 'call.deduplicated', source: 'reconcile' });
      return { kind: 'done', result: { ok: true, value, deduplicated: true, degraded: false } };
    } catch (error) {
      const classification = env.classify(error);
      return {
        kind: 'done',
        result: await fail(
          env,
          base,
          settle,
          classification,
          abortDecision(
            'RECONCILE_FAILED',
            'the reconcile read failed, so the write stays in doubt',
          ),
          0,
          true,
          error,
        ),
      };
    }
  }
  if (policy.idempotent) return { kind: 'proceed' }; // replay behind the same key
  const classification: Classification = {
    failureClass: 'UNKNOWN_OUTCOME',
    code: 'IN_DOUBT',
    message: `an earlier ${tool} attempt may have landed`,
  };
  return {
    kind: 'done',
    result: await fail(
      env,
      base,
      settle,
      classification,
      abortDecision('RECONCILE_BY_HAND', 'side effects with no checkpoint: reconcile by hand'),
      0,
      true,
    ),
  };
}

async function fail(
  env: CallEnvironment,
  base: Base,
  settle: Settle,
  classification: Classification,
  decision: Decision,
  attempts: number,
  inDoubt: boolean,
  error?: unknown,
  repairAttempts = 0,
): Promise<ToolCallFailure> {
  const tool = env.request.toolName;
  await settle(inDoubt ? 'uncertain' : 'release');
  if (inDoubt && decision.terminal)
    env.state.needsReconciliation.push({ tool, idempotency_key: env.key });
  const contract = buildContract({
    tool,
    decision,
    classification,
    attempts: attempts || undefined,
    repairsRemaining: decision.terminal
      ? undefined
      : Math.max(0, env.repairBudget - repairAttempts - 1),
    idempotencyKey: env.policy.sideEffects ? env.key : undefined,
  });
  env.state.recordFailure(tool, classification, decision, contract.guidance);
  return {
    ok: false,
    contract,
    decision,
    classification,
    ...(error === undefined ? {} : { error }),
  };
}

async function useFallback(
  env: CallEnvironment,
  base: Base,
  classification: Classification,
  decision: Decision,
): Promise<ToolCallResult> {
  const { request, policy, key } = env;
  const tool = request.toolName;
  const value = await policy.fallback!(request.input, {
    runId: env.runId,
    toolName: tool,
    idempotencyKey: key,
    classification,
  });
  env.state.recordDegraded(
    tool,
    policy.missingEvidence ?? `${tool} (primary unavailable: ${classification.code})`,
  );
  env.emit({ ...base(), type: 'fallback.used', reason: decision.reason });
  env.emit({ ...base(), type: 'call.succeeded', attempt: 0, degraded: true });
  return { ok: true, value, deduplicated: false, degraded: true };
}

function abortDecision(code: string, reason: string): Decision {
  return { action: 'ABORT', code, reason, terminal: true };
}

function isOutageAbort(decision: Decision): boolean {
  return (
    decision.action === 'ABORT' &&
    ['RETRY_BUDGET_SPENT', 'DEPENDENCY_RETRY_BUDGET_EXHAUSTED', 'RETRY_AFTER_TOO_LONG'].includes(
      decision.code,
    )
  );
}

function isCallerAbort(error: unknown, signal: AbortSignal | undefined): boolean {
  return (
    signal?.aborted === true &&
    (error === signal.reason || (error instanceof Error && error.name === 'AbortError'))
  );
}

function toJson(value: unknown): JsonValue {
  if (value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value)) as JsonValue;
  } catch {
    return null;
  }
}
