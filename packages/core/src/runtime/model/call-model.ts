import type { Classifier } from '../../classify/index.js';
import type { Clock, RandomSource } from '../../clock.js';
import type { ResolvedBackoff } from '../../policy/backoff.js';
import { decideRecovery } from '../../policy/decide-recovery.js';
import type { RetryBudget } from '../../policy/retry-budget.js';
import type { Classification, Decision } from '../../types.js';
import { type CircuitFacts, countSuccess, recover, timeFacts } from '../retry-loop.js';
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
  /** The time budget of recovering, from the request's first failure (the tools' `maxElapsedMs`). */
  maxElapsedMs?: number | undefined;
  /** The run's deadline, when it has one: recovery spends the run's time left. */
  deadlineAt?: number | undefined;
  /** The request's tracing span, when something records. */
  span?: ModelSpan | undefined;
}

/**
 * A request to the model itself (not a tool): transient faults are retried in the tools'
 * loop (`retry-loop.ts`: budget, backoff, time budget, circuit); anything else ends it
 * with a decision. A model request changes nothing outside, so there is nothing to reconcile.
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
  const { span, clock } = parts;
  let failedAt: number | undefined;
  for (let attempt = 1; ; attempt++) {
    try {
      const value = await (span ? span.run(fn) : fn());
      countSuccess(parts.budget, 'model');
      return { ok: true, value };
    } catch (error) {
      if (signal?.aborted) throw error;
      const classification = parts.classify(error);
      failedAt ??= clock.now();
      // The tools' loop, with the facts of a model request: it changes nothing outside
      // (not in doubt, nothing to reconcile) and has no repairs to count.
      const decide = (facts: CircuitFacts): Decision =>
        decideRecovery(
          {
            tool: 'model',
            failureClass: classification.failureClass,
            code: classification.code,
            inDoubt: false,
            attempts: attempt,
            repairAttempts: 0,
            retryAfterMs: classification.retryAfterMs,
            ...timeFacts(clock, failedAt, parts.deadlineAt),
            ...facts,
          },
          {
            maxAttempts: parts.maxAttempts,
            maxElapsedMs: parts.maxElapsedMs,
            backoff: parts.backoff,
            random: parts.random,
          },
        );
      const wait = async (delayMs: number): Promise<boolean> => {
        span?.retry(attempt, delayMs, classification);
        await clock.sleep(delayMs, signal);
        return true;
      };
      const answer = await recover(
        { budget: parts.budget, dependency: 'model', decide, wait },
        classification,
        attempt,
      );
      if (!answer.resend) return { ok: false, classification, decision: answer.decision, error };
    }
  }
}
