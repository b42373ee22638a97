import { type Clock, InvalidOptionsError, systemClock } from '@recourse/core';
import { type RetryBudgetOptions, resolveRetryBudgetOptions } from '@recourse/core/store';
import type { Redis } from 'ioredis';
import {
  defaultKeyPrefix,
  type RedisLedgerOptions,
  validateRedisTarget,
} from './redis-ledger-options.js';

/** Where the shared buckets live: a URL (the budget owns its client) or your client. */
export type RedisRetryBudgetTarget =
  | {
      /** `redis://` or `rediss://` URL; the budget creates, and `close()` quits, its client. */
      url: string;
      client?: undefined;
    }
  | {
      /** A client you own: the budget never quits it. */
      client: Redis;
      url?: undefined;
    };

export interface RedisRetryBudgetOptions extends RetryBudgetOptions {
  /** Prefix of every key the budget writes (`<prefix>budget:<dependency>`). Default `recourse:`. */
  keyPrefix?: string | undefined;
  /** A bucket untouched this long disappears (and comes back full). Default 10 minutes. */
  ttlMs?: number | undefined;
  /** After a Redis failure, how long to answer from the local budget alone. Default 1 s. */
  fallbackMs?: number | undefined;
  /** Time source for `fallbackMs`. Default the system clock. */
  clock?: Clock | undefined;
  /** Told of every Redis failure the budget absorbed (for logs and metrics). */
  onError?: ((error: unknown) => void) | undefined;
}

export interface ResolvedRedisRetryBudgetOptions {
  maxTokens: number;
  tokenRatio: number;
  tripAfter: number;
  probeIntervalMs: number;
  keyPrefix: string;
  ttlMs: number;
  fallbackMs: number;
  clock: Clock;
  onError: (error: unknown) => void;
}

/** Defaults and checks; a bad option throws `InvalidOptionsError` naming the field. */
export function resolveRedisRetryBudgetOptions(
  target: RedisRetryBudgetTarget,
  options: RedisRetryBudgetOptions,
): ResolvedRedisRetryBudgetOptions {
  if (typeof target !== 'object' || target === null) {
    throw new InvalidOptionsError('target', 'expected `{ url }` or `{ client }`');
  }
  if (typeof options !== 'object' || options === null) {
    throw new InvalidOptionsError('options', 'must be an object');
  }
  validateRedisTarget({ ...target, keyPrefix: options.keyPrefix } as RedisLedgerOptions);
  const { maxTokens, tokenRatio, tripAfter, probeIntervalMs } = resolveRetryBudgetOptions(
    options,
    '',
  );
  const ttlMs = options.ttlMs ?? 10 * 60 * 1000;
  const fallbackMs = options.fallbackMs ?? 1_000;
  checkInteger(ttlMs, 'ttlMs', 1);
  checkInteger(fallbackMs, 'fallbackMs', 0);
  if (options.onError !== undefined && typeof options.onError !== 'function') {
    throw new InvalidOptionsError('onError', 'must be a function');
  }
  return {
    maxTokens,
    tokenRatio,
    tripAfter,
    probeIntervalMs,
    keyPrefix: options.keyPrefix ?? defaultKeyPrefix,
    ttlMs,
    fallbackMs,
    clock: options.clock ?? systemClock,
    onError: options.onError ?? (() => {}),
  };
}

function checkInteger(value: unknown, field: string, min: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new InvalidOptionsError(field, `must be an integer >= ${min}, got ${String(value)}`);
  }
}
