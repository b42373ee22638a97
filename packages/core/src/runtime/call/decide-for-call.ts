import { decideRecovery } from '../../policy/decide-recovery.js';
import type { Classification, Decision, DecisionState } from '../../types.js';
import type { Call } from './call.js';

/** Extra facts of the moment: what the budget, the repair count or a reconcile said. */
export type MomentFacts = Partial<
  Pick<
    DecisionState,
    | 'repairAttempts'
    | 'repairsUnknown'
    | 'retryBudgetExhausted'
    | 'retryBudgetWaitMs'
    | 'reconciled'
    | 'attempts'
  >
>;

/** The policy's answer for this call: its facts in a `DecisionState`, the run's budgets. */
export function decideForCall(
  call: Call,
  classification: Classification,
  facts: MomentFacts = {},
): Decision {
  const { tool, run } = call;
  return decideRecovery(
    {
      tool: tool.name,
      failureClass: classification.failureClass,
      code: classification.code,
      sideEffects: call.inDoubt,
      checkpoint: tool.claims && tool.policy.idempotent ? call.key : undefined,
      reconcilable: tool.claims && tool.policy.reconcile !== undefined,
      hasFallback: tool.policy.fallback !== undefined,
      attempts: facts.attempts ?? call.attempts,
      repairAttempts: facts.repairAttempts ?? 0,
      repairsUnknown: facts.repairsUnknown,
      retryAfterMs: classification.retryAfterMs,
      reconciled: facts.reconciled,
      retryBudgetExhausted: facts.retryBudgetExhausted,
      retryBudgetWaitMs: facts.retryBudgetWaitMs,
      elapsedMs: call.failedAt === undefined ? 0 : run.clock.now() - call.failedAt,
      timeLeftMs: run.deadlineAt === undefined ? undefined : run.deadlineAt - run.clock.now(),
    },
    {
      maxAttempts: tool.maxAttempts,
      maxElapsedMs: run.maxElapsedMs,
      repairBudget: run.repairBudget,
      backoff: run.backoff,
      random: run.random,
      onPoison: run.onPoison,
    },
  );
}
