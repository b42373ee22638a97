import { InvalidOptionsError } from '../errors.js';

export interface RetryBudgetOptions {
  /** Bucket size per dependency. Default 10. */
  maxTokens?: number | undefined;
  /** Tokens a success returns. Default 0.1: at most about one retry per ten successes. */
  tokenRatio?: number | undefined;
}

/**
 * Retry throttling per dependency, after gRPC's retry throttling: every failed attempt
 * takes a token, every success returns `tokenRatio`, and retries are allowed only while
 * more than half the bucket is left. During an outage retries stop instead of
 * multiplying the load; they resume as successes refill the bucket.
 *
 * Methods may answer synchronously (the in-process budget) or with a promise (a budget
 * shared through a store); the runtime awaits both. A method that throws or rejects
 * never breaks a call: see `canRetryWithin`.
 */
export interface RetryBudget {
  /** True when a retry against `dependency` is allowed now. */
  canRetry(dependency: string): boolean | Promise<boolean>;
  recordFailure(dependency: string): void | Promise<void>;
  recordSuccess(dependency: string): void | Promise<void>;
  tokens(dependency: string): number | Promise<number>;
}

/** The in-process budget: every answer is immediate. */
export interface LocalRetryBudget extends RetryBudget {
  canRetry(dependency: string): boolean;
  recordFailure(dependency: string): void;
  recordSuccess(dependency: string): void;
  tokens(dependency: string): number;
}

export interface ResolvedRetryBudgetOptions {
  maxTokens: number;
  tokenRatio: number;
}

/** Defaults and checks; `field` prefixes the option names in errors. */
export function resolveRetryBudgetOptions(
  options: RetryBudgetOptions = {},
  field = 'retry.budget.',
): ResolvedRetryBudgetOptions {
  const maxTokens = options.maxTokens ?? 10;
  const tokenRatio = options.tokenRatio ?? 0.1;
  if (!(typeof maxTokens === 'number' && Number.isFinite(maxTokens) && maxTokens > 0)) {
    throw new InvalidOptionsError(`${field}maxTokens`, 'must be a number > 0');
  }
  if (
    !(
      typeof tokenRatio === 'number' &&
      Number.isFinite(tokenRatio) &&
      tokenRatio > 0 &&
      tokenRatio <= maxTokens
    )
  ) {
    throw new InvalidOptionsError(`${field}tokenRatio`, 'must be a number > 0 and <= maxTokens');
  }
  return { maxTokens, tokenRatio };
}

export function createRetryBudget(options: RetryBudgetOptions = {}): LocalRetryBudget {
  const { maxTokens, tokenRatio } = resolveRetryBudgetOptions(options);
  const buckets = new Map<string, number>();
  const current = (dependency: string) => buckets.get(dependency) ?? maxTokens;
  return {
    canRetry: (dependency) => current(dependency) > maxTokens / 2,
    recordFailure(dependency) {
      buckets.set(dependency, Math.max(0, current(dependency) - 1));
    },
    recordSuccess(dependency) {
      buckets.set(dependency, Math.min(maxTokens, current(dependency) + tokenRatio));
    },
    tokens: current,
  };
}

/**
 * Asks `budget` whether a retry is allowed. No budget, or one that throws or rejects,
 * allows it (fail open): the per-call attempt limit still bounds the retries, whereas
 * failing closed would stop every retry of every call whenever the budget's store blips.
 * A shared budget should keep its own local fallback (as the Redis one does) so that an
 * outage of its store does not lift throttling altogether.
 */
export async function canRetryWithin(
  budget: RetryBudget | undefined,
  dependency: string,
): Promise<boolean> {
  if (!budget) return true;
  try {
    return (await budget.canRetry(dependency)) !== false;
  } catch {
    return true;
  }
}

/**
 * Records an attempt's outcome; a budget that throws or rejects never breaks the call.
 * Synchronous for an in-process budget; a shared budget's promise is returned (settled,
 * never rejecting) for callers that want to wait for it.
 */
export function recordBudgetOutcome(
  budget: RetryBudget | undefined,
  dependency: string,
  outcome: 'success' | 'failure',
): Promise<void> | undefined {
  if (!budget) return undefined;
  try {
    const answer =
      outcome === 'success' ? budget.recordSuccess(dependency) : budget.recordFailure(dependency);
    if (answer && typeof (answer as Promise<void>).then === 'function') {
      // Throttling is advisory: losing one sample is better than failing the call.
      return (answer as Promise<void>).then(undefined, () => {});
    }
  } catch {
    // As above.
  }
  return undefined;
}
