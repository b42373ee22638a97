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
 */
export interface RetryBudget {
  /** True when a retry against `dependency` is allowed now. */
  canRetry(dependency: string): boolean;
  recordFailure(dependency: string): void;
  recordSuccess(dependency: string): void;
  tokens(dependency: string): number;
}

export function createRetryBudget(options: RetryBudgetOptions = {}): RetryBudget {
  const maxTokens = options.maxTokens ?? 10;
  const tokenRatio = options.tokenRatio ?? 0.1;
  if (!(Number.isFinite(maxTokens) && maxTokens > 0)) {
    throw new InvalidOptionsError('retry.budget.maxTokens', 'must be a number > 0');
  }
  if (!(Number.isFinite(tokenRatio) && tokenRatio > 0 && tokenRatio <= maxTokens)) {
    throw new InvalidOptionsError('retry.budget.tokenRatio', 'must be a number > 0');
  }
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
