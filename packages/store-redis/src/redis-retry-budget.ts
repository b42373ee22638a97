import { createRetryBudget, type RetryBudget } from '@recourse/core';
import { Redis } from 'ioredis';
import {
  type RedisRetryBudgetOptions,
  type RedisRetryBudgetTarget,
  resolveRedisRetryBudgetOptions,
} from './redis-retry-budget-options.js';
import { defineCircuit } from './redis-retry-budget-script.js';

/** A retry budget whose buckets live in Redis; every answer is a promise that never rejects. */
export interface RedisRetryBudget extends RetryBudget {
  canRetry(dependency: string): Promise<boolean>;
  recordFailure(dependency: string, attempt?: 'first' | 'retry'): Promise<void>;
  recordSuccess(dependency: string): Promise<void>;
  tokens(dependency: string): Promise<number>;
  retryInMs(dependency: string): Promise<number | undefined>;
  /** Quits the client if the budget created it (from `url`); a client you passed stays open. */
  close(): Promise<void>;
}

/**
 * The retry budget (throttling with a half-open probe, see `createRetryBudget`) shared by
 * every process that points at the same Redis and key prefix: failures seen by one worker
 * open the circuit for all of them, one probe per interval goes out fleet-wide, and the
 * first success anywhere closes it. One hash per dependency, changed by one Lua script, so
 * concurrent updates never lose a token. All sharers should use the same options.
 *
 * When Redis fails, the budget answers from a local in-process mirror (which records
 * every outcome all along) for `fallbackMs` before trying Redis again. That fails open
 * for the fleet (each process throttles only on what it saw itself) rather than closed
 * (no retries anywhere while Redis is down), and never lets a Redis outage break or slow
 * a tool call: the attempt limit per call still bounds each call's retries.
 */
export function createRedisRetryBudget(
  target: RedisRetryBudgetTarget,
  options: RedisRetryBudgetOptions = {},
): RedisRetryBudget {
  const resolved = resolveRedisRetryBudgetOptions(target, options);
  const { maxTokens, tokenRatio, tripAfter, probeIntervalMs } = resolved;
  const { keyPrefix, ttlMs, fallbackMs, clock, onError } = resolved;
  const local = createRetryBudget({ maxTokens, tokenRatio, tripAfter, probeIntervalMs, clock });
  const owned = target.client === undefined;
  const client = target.client ?? createOwnedClient(target.url);
  const circuit = defineCircuit(client, {
    maxTokens,
    tokenRatio,
    tripAfter,
    probeIntervalMs,
    ttlMs,
  });
  const key = (dependency: string) => `${keyPrefix}budget:${dependency}`;
  let localUntil = Number.NEGATIVE_INFINITY;

  /** Redis's answer, or the local one while Redis is failing. */
  async function shared<T>(ask: () => Promise<T>, fallback: () => T): Promise<T> {
    if (clock.now() < localUntil) return fallback();
    try {
      return await ask();
    } catch (error) {
      localUntil = clock.now() + fallbackMs;
      try {
        onError(error);
      } catch {
        // A throwing listener must not turn an absorbed outage into a failed call.
      }
      return fallback();
    }
  }

  const run = (dependency: string, op: Parameters<typeof circuit>[1]) =>
    circuit(key(dependency), op, clock.now());

  return {
    canRetry: (dependency) =>
      shared(
        async () => (await run(dependency, 'can')) === 1,
        () => local.canRetry(dependency),
      ),
    tokens: (dependency) =>
      shared(
        () => run(dependency, 'tokens'),
        () => local.tokens(dependency),
      ),
    retryInMs: (dependency) =>
      shared(
        async () => {
          const wait = await run(dependency, 'wait');
          return wait < 0 ? undefined : wait;
        },
        () => local.retryInMs(dependency),
      ),
    async recordFailure(dependency, attempt = 'first') {
      local.recordFailure(dependency, attempt);
      await shared(
        () => run(dependency, attempt === 'first' ? 'fail' : 'fail-retry'),
        () => 0,
      );
    },
    async recordSuccess(dependency) {
      local.recordSuccess(dependency);
      await shared(
        () => run(dependency, 'ok'),
        () => 0,
      );
    },
    async close() {
      if (owned) await client.quit().catch(() => client.disconnect());
    },
  };
}

/** Short timeouts: the budget sits on every call's path, and has a local fallback. */
function createOwnedClient(url: string): Redis {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    connectTimeout: 1_000,
    commandTimeout: 1_000,
    retryStrategy: (times) => Math.min(times * 100, 1_000),
  });
  // Failures surface on each command (and fall back); without a listener ioredis would
  // also print every reconnect failure.
  client.on('error', () => {});
  return client;
}
