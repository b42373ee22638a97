import type { Clock, RandomSource } from '../clock.js';
import type { ResolvedBackoff } from '../policy/backoff.js';
import { decideRecovery } from '../policy/decide-recovery.js';
import { canRetryWithin, type RetryBudget, recordBudgetOutcome } from '../policy/retry-budget.js';
import type { Classification, Decision } from '../types.js';

export type ModelCallResult<T> =
  | { ok: true; value: T }
  | { ok: false; classification: Classification; decision: Decision; error: unknown };

export interface ModelCallEnvironment {
  clock: Clock;
  random: RandomSource;
  classify: (error: unknown) => Classification;
  budget: RetryBudget | undefined;
  backoff: ResolvedBackoff;
  maxAttempts: number;
  onFailure?:
    | ((
        classification: Classification,
        decision: Decision,
        attempt: number,
        error: unknown,
      ) => void)
    | undefined;
}

/**
 * A request to the model itself (not a tool): transient faults are retried under the
 * same backoff and retry budget as tools; anything else ends the attempt with a decision.
 * A model call has no side effects the run cares about, so there is nothing to reconcile.
 */
export async function callModelWithRecovery<T>(
  env: ModelCallEnvironment,
  fn: () => Promise<T>,
  signal?: AbortSignal | undefined,
): Promise<ModelCallResult<T>> {
  for (let attempt = 1; ; attempt++) {
    try {
      const value = await fn();
      await recordBudgetOutcome(env.budget, 'model', 'success');
      return { ok: true, value };
    } catch (error) {
      if (signal?.aborted) throw error;
      const classification = env.classify(error);
      const transient = classification.failureClass === 'TRANSIENT';
      if (transient) await recordBudgetOutcome(env.budget, 'model', 'failure');
      const budgetExhausted = transient && !(await canRetryWithin(env.budget, 'model'));
      const decision = decideRecovery(
        {
          tool: 'model',
          failureClass: classification.failureClass,
          sideEffects: false,
          attempts: attempt,
          repairAttempts: 0,
          retryAfterMs: classification.retryAfterMs,
          retryBudgetExhausted: budgetExhausted,
        },
        { maxAttempts: env.maxAttempts, backoff: env.backoff, random: env.random },
      );
      env.onFailure?.(classification, decision, attempt, error);
      if (decision.action !== 'RETRY') return { ok: false, classification, decision, error };
      await env.clock.sleep(decision.delayMs ?? 0, signal);
    }
  }
}
