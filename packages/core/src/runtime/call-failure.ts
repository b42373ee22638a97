import type { Classification, Decision } from '../types.js';
import type { CallScope } from './call-scope.js';
import { buildContract } from './recovery-contract.js';
import type { ToolCallFailure, ToolCallResult } from './tool-call.js';

export interface FailureDetails {
  attempts: number;
  /** The write may have landed: the key stays in doubt. */
  inDoubt: boolean;
  error?: unknown;
  repairAttempts?: number | undefined;
}

/** Ends a call in failure: settles the claim truthfully and builds what the model is told. */
export async function failCall(
  scope: CallScope,
  classification: Classification,
  decision: Decision,
  details: FailureDetails,
): Promise<ToolCallFailure> {
  const { env } = scope;
  const tool = env.request.toolName;
  await scope.settle(details.inDoubt ? 'uncertain' : 'release');
  if (details.inDoubt && decision.terminal) {
    env.state.needsReconciliation.push({ tool, idempotency_key: env.key });
  }
  const contract = buildContract({
    tool,
    decision,
    classification,
    attempts: details.attempts || undefined,
    repairsRemaining: decision.terminal
      ? undefined
      : Math.max(0, env.repairBudget - (details.repairAttempts ?? 0) - 1),
    idempotencyKey: env.policy.sideEffects ? env.key : undefined,
  });
  env.state.recordFailure(tool, classification, decision, contract.guidance);
  const error = details.error;
  return {
    ok: false,
    contract,
    decision,
    classification,
    ...(error === undefined ? {} : { error }),
  };
}

/** The declared fallback, used explicitly: the result is marked degraded. */
export async function useFallback(
  scope: CallScope,
  classification: Classification,
  decision: Decision,
): Promise<ToolCallResult> {
  const { request, policy, key, runId, state } = scope.env;
  const tool = request.toolName;
  await scope.settle('release');
  const value = await policy.fallback!(request.input, {
    runId,
    toolName: tool,
    idempotencyKey: key,
    classification,
  });
  const missingEvidence =
    policy.missingEvidence ?? `${tool} (primary unavailable: ${classification.code})`;
  state.recordDegraded(tool, missingEvidence);
  scope.env.emit({ ...scope.base(), type: 'fallback.used', reason: decision.reason });
  scope.env.emit({ ...scope.base(), type: 'call.succeeded', attempt: 0, degraded: true });
  return { ok: true, value, deduplicated: false, degraded: true, missingEvidence };
}

export function abortDecision(code: string, reason: string): Decision {
  return { action: 'ABORT', code, reason, terminal: true };
}

/** Retries ran out against an unavailable dependency: where a fallback may stand in. */
export function isOutageAbort(decision: Decision): boolean {
  return (
    decision.action === 'ABORT' &&
    ['RETRY_BUDGET_SPENT', 'DEPENDENCY_RETRY_BUDGET_EXHAUSTED', 'RETRY_AFTER_TOO_LONG'].includes(
      decision.code,
    )
  );
}

/** Another worker took the key over: report it in flight, send nothing more. */
export function leaseLostFailure(scope: CallScope): ToolCallFailure {
  const tool = scope.env.request.toolName;
  const classification: Classification = {
    failureClass: 'UNKNOWN_OUTCOME',
    code: 'LEASE_LOST',
    message: `another worker took over the ${tool} write`,
  };
  const decision: Decision = {
    action: 'REOBSERVE',
    code: 'LEASE_LOST',
    reason: 'the claim was taken over by another worker; its result will be the result',
    terminal: false,
  };
  const contract = buildContract({
    tool,
    decision,
    classification,
    idempotencyKey: scope.env.key,
    status: 'IN_FLIGHT',
  });
  scope.env.state.recordFailure(tool, classification, decision, contract.guidance);
  return { ok: false, contract, decision, classification };
}
