import type { Classifier } from '../../classify/index.js';
import type { Clock, RandomSource } from '../../clock.js';
import type { ResolvedBackoff } from '../../policy/backoff.js';
import { decideRecovery } from '../../policy/decide-recovery.js';
import {
  canRetryWithin,
  type RetryBudget,
  recordBudgetOutcome,
} from '../../policy/retry-budget.js';
import type { Classification, Decision } from '../../types.js';
import type { ModelSpan } from '../telemetry.js';

export type ModelCallResult<T> =
  | { ok: true; value: T }
  | { ok: false; classification: Classification; decision: Decision; error: unknown };

export interface ModelCallParts {
  clock: Clock;
  random: RandomSource;
  classify: Classifier;
  budget: RetryBudget | undefined;
  backoff: ResolvedBackoff;
  maxAttempts: number;
  /** The request's tracing span, when something records. */
  span?: ModelSpan | undefined;
}

/**
 * A request to the model itself (not a tool): transient faults are retried under the
 * same policy, backoff and retry budget as tools; anything else ends it with a decision.
 * A model request changes nothing outside, so there is nothing to reconcile.
 */
export async function callModelWithRecovery<T>(
  parts: ModelCallParts,
  fn: () => Promise<T>,
  signal?: AbortSignal | undefined,
): Promise<ModelCallResult<T>> {
  const { span } = parts;
  if (!span) return attemptModel(parts, fn, signal);
  let result: ModelCallResult<T>;
  try {
    result = await attemptModel(parts, fn, signal);
  } catch (error) {
    span.abort(error);
    throw error; // the caller's own abort
  }
  span.end(result.ok ? undefined : result);
  return result;
}

async function attemptModel<T>(
  parts: ModelCallParts,
  fn: () => Promise<T>,
  signal: AbortSignal | undefined,
): Promise<ModelCallResult<T>> {
  const { span } = parts;
  for (let attempt = 1; ; attempt++) {
    try {
      const value = await (span ? span.run(fn) : fn());
      void recordBudgetOutcome(parts.budget, 'model', 'success');
      return { ok: true, value };
    } catch (error) {
      if (signal?.aborted) throw error;
      const classification = parts.classify(error);
      const transient = classification.failureClass === 'TRANSIENT';
      if (transient) {
        await recordBudgetOutcome(parts.budget, 'model', attempt > 1 ? 'retry-failure' : 'failure');
      }
      const retryBudgetExhausted = transient && !(await canRetryWithin(parts.budget, 'model'));
      const decision = decideRecovery(
        {
          tool: 'model',
          failureClass: classification.failureClass,
          code: classification.code,
          sideEffects: false,
          attempts: attempt,
          repairAttempts: 0,
          retryAfterMs: classification.retryAfterMs,
          retryBudgetExhausted,
        },
        { maxAttempts: parts.maxAttempts, backoff: parts.backoff, random: parts.random },
      );
      if (decision.action !== 'RETRY') return { ok: false, classification, decision, error };
      span?.retry(attempt, decision.delayMs ?? 0, classification);
      await parts.clock.sleep(decision.delayMs ?? 0, signal);
    }
  }
}
