import { type Clock, systemClock } from '../clock.js';
import { InvalidOptionsError } from '../errors.js';

export interface RetryBudgetOptions {
  /** Bucket size per dependency. Default 10. */
  maxTokens?: number | undefined;
  /** Tokens a success returns. Default 0.1. */
  tokenRatio?: number | undefined;
  /**
   * Calls in a row whose first attempt failed transiently (no success between) that open
   * the circuit: a sign that the dependency, not one call, is in trouble. Default 2.
   */
  tripAfter?: number | undefined;
  /** While open, one retry per interval probes the dependency. Default 2000 ms. */
  probeIntervalMs?: number | undefined;
}

/**
 * Retry throttling per dependency, after gRPC's retry throttling and AWS's retry quota,
 * with the half-open probe of a circuit breaker. Every transient failure takes a token and
 * every success returns `tokenRatio`. The circuit opens when half the bucket is gone or
 * `tripAfter` failures came in a row: retries stop (first attempts still go out), except
 * one probe per `probeIntervalMs`; the first success closes it and refills the bucket, so
 * retries resume as soon as the dependency answers, not when a slow refill allows.
 *
 * Methods may answer synchronously (the in-process budget) or with a promise (a budget
 * shared through a store); a method that throws or rejects never breaks a call.
 */
export interface RetryBudget {
  /** True when a retry against `dependency` may be sent now (a probe counts as sent). */
  canRetry(dependency: string): boolean | Promise<boolean>;
  /** `retry`: the failure of a retry, which spends a token but says nothing new about the dependency. */
  recordFailure(dependency: string, attempt?: 'first' | 'retry'): void | Promise<void>;
  recordSuccess(dependency: string): void | Promise<void>;
  tokens(dependency: string): number | Promise<number>;
  /** When a refused retry may be allowed (the next probe), in ms; undefined: not known. */
  retryInMs?(dependency: string): number | undefined | Promise<number | undefined>;
}

/** The in-process budget: every answer is immediate. */
export interface LocalRetryBudget extends RetryBudget {
  canRetry(dependency: string): boolean;
  recordFailure(dependency: string, attempt?: 'first' | 'retry'): void;
  recordSuccess(dependency: string): void;
  tokens(dependency: string): number;
  retryInMs(dependency: string): number | undefined;
}

export interface ResolvedRetryBudgetOptions {
  maxTokens: number;
  tokenRatio: number;
  tripAfter: number;
  probeIntervalMs: number;
}

const positive = (value: unknown) =>
  typeof value === 'number' && Number.isFinite(value) && value > 0;

/** Defaults and checks; `field` prefixes the option names in errors. */
export function resolveRetryBudgetOptions(
  options: RetryBudgetOptions = {},
  field = 'retry.budget.',
): ResolvedRetryBudgetOptions {
  const maxTokens = options.maxTokens ?? 10;
  const tokenRatio = options.tokenRatio ?? 0.1;
  const tripAfter = options.tripAfter ?? 2;
  const probeIntervalMs = options.probeIntervalMs ?? 2_000;
  if (!positive(maxTokens))
    throw new InvalidOptionsError(`${field}maxTokens`, 'must be a number > 0');
  if (!positive(tokenRatio) || tokenRatio > maxTokens) {
    throw new InvalidOptionsError(`${field}tokenRatio`, 'must be a number > 0 and <= maxTokens');
  }
  if (!(Number.isInteger(tripAfter) && tripAfter >= 1)) {
    throw new InvalidOptionsError(`${field}tripAfter`, 'must be an integer >= 1');
  }
  if (!positive(probeIntervalMs)) {
    throw new InvalidOptionsError(
      `${field}probeIntervalMs`,
      'must be a number of milliseconds > 0',
    );
  }
  return { maxTokens, tokenRatio, tripAfter, probeIntervalMs };
}

interface Circuit {
  tokens: number;
  inRow: number;
  /** Set while open: when the next probe may go. */
  probeAt: number | undefined;
}

export function createRetryBudget(
  options: RetryBudgetOptions & { clock?: Pick<Clock, 'now'> | undefined } = {},
): LocalRetryBudget {
  const { clock = systemClock, ...rest } = options;
  const { maxTokens, tokenRatio, tripAfter, probeIntervalMs } = resolveRetryBudgetOptions(rest);
  const circuits = new Map<string, Circuit>();
  const circuit = (dependency: string) => {
    let found = circuits.get(dependency);
    if (!found) {
      found = { tokens: maxTokens, inRow: 0, probeAt: undefined };
      circuits.set(dependency, found);
    }
    return found;
  };
  return {
    canRetry(dependency) {
      const c = circuits.get(dependency);
      if (c?.probeAt === undefined) return true;
      const now = clock.now();
      if (now < c.probeAt) return false;
      c.probeAt = now + probeIntervalMs; // this retry is the probe
      return true;
    },
    recordFailure(dependency, attempt = 'first') {
      const c = circuit(dependency);
      c.tokens = Math.max(0, c.tokens - 1);
      if (attempt === 'first') c.inRow += 1;
      if (c.probeAt === undefined && (c.tokens <= maxTokens / 2 || c.inRow >= tripAfter)) {
        c.probeAt = clock.now() + probeIntervalMs;
      }
    },
    recordSuccess(dependency) {
      const c = circuits.get(dependency);
      if (!c) return;
      c.inRow = 0;
      if (c.probeAt !== undefined) {
        c.probeAt = undefined; // it answered: close, and let retries resume at once
        c.tokens = maxTokens;
      } else {
        c.tokens = Math.min(maxTokens, c.tokens + tokenRatio);
      }
    },
    tokens: (dependency) => circuits.get(dependency)?.tokens ?? maxTokens,
    retryInMs(dependency) {
      const probeAt = circuits.get(dependency)?.probeAt;
      return probeAt === undefined ? undefined : Math.max(0, probeAt - clock.now());
    },
  };
}

/**
 * Asks `budget` whether a retry may be sent. No budget, or one that throws or rejects,
 * allows it (fail open): the per-call attempt and time limits still bound the retries,
 * whereas failing closed would stop every retry of every call whenever the budget's store
 * blips. A shared budget should keep its own local fallback (as the Redis one does).
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

/** How long until a refused retry may be allowed, when the budget knows; never throws. */
export async function retryInMsOf(
  budget: RetryBudget | undefined,
  dependency: string,
): Promise<number | undefined> {
  try {
    const wait = await budget?.retryInMs?.(dependency);
    return typeof wait === 'number' && Number.isFinite(wait) && wait >= 0 ? wait : undefined;
  } catch {
    return undefined;
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
  outcome: 'success' | 'failure' | 'retry-failure',
): Promise<void> | undefined {
  if (!budget) return undefined;
  try {
    const answer =
      outcome === 'success'
        ? budget.recordSuccess(dependency)
        : budget.recordFailure(dependency, outcome === 'failure' ? 'first' : 'retry');
    if (answer && typeof (answer as Promise<void>).then === 'function') {
      // Throttling is advisory: losing one sample is better than failing the call.
      return (answer as Promise<void>).then(undefined, () => {});
    }
  } catch {
    // As above.
  }
  return undefined;
}
