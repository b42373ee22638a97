import type { RandomSource } from '../clock.js';
import { InvalidOptionsError } from '../errors.js';

export interface BackoffOptions {
  /** Delay scale of the first retry. Default 200 ms. */
  baseDelayMs?: number | undefined;
  /** Growth per attempt. Default 4: 200 ms, 800 ms, 3200 ms before jitter. */
  factor?: number | undefined;
  /** No computed delay exceeds this, and a server hint beyond it means "not now". Default 60 s. */
  maxDelayMs?: number | undefined;
  /**
   * 'equal' (default): a delay drawn from [ceiling / 2, ceiling], so that retries of one
   * burst stay spread over the burst instead of bunching near zero. 'full': from
   * [0, ceiling] (the lowest mean, the least protection against a burst).
   */
  jitter?: 'equal' | 'full' | undefined;
}

/** Backoff options with every default filled in. */
export interface ResolvedBackoff {
  baseDelayMs: number;
  factor: number;
  maxDelayMs: number;
  jitter: 'equal' | 'full';
}

export type BackoffResult =
  | { retry: true; delayMs: number }
  | { retry: false; reason: 'RETRY_AFTER_TOO_LONG'; retryAfterMs: number };

export const defaultBackoff = {
  baseDelayMs: 200,
  factor: 4,
  maxDelayMs: 60_000,
  jitter: 'equal',
} as const;

export function validateBackoff(options: BackoffOptions, field = 'retry'): ResolvedBackoff {
  const jitter = options.jitter ?? defaultBackoff.jitter;
  if (jitter !== 'equal' && jitter !== 'full') {
    throw new InvalidOptionsError(`${field}.jitter`, "must be 'equal' or 'full'");
  }
  const resolved: ResolvedBackoff = {
    baseDelayMs: options.baseDelayMs ?? defaultBackoff.baseDelayMs,
    factor: options.factor ?? defaultBackoff.factor,
    maxDelayMs: options.maxDelayMs ?? defaultBackoff.maxDelayMs,
    jitter,
  };
  for (const [name, value] of Object.entries(resolved)) {
    if (name === 'jitter') continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new InvalidOptionsError(
        `${field}.${name}`,
        `must be a finite number >= 0, got ${String(value)}`,
      );
    }
  }
  if (resolved.factor < 1) throw new InvalidOptionsError(`${field}.factor`, 'must be >= 1');
  return resolved;
}

/**
 * Exponential backoff with jitter: the ceiling is min(max, base * factor^(retry-1)); the
 * delay is drawn from [ceiling / 2, ceiling] ('equal') or [0, ceiling] ('full'), so runs
 * that fail together do not retry in lock-step. A server's Retry-After is a floor; one
 * beyond `maxDelayMs` is not slept on.
 *
 * @param retryNumber 1 for the first retry.
 */
export function computeBackoff(
  retryNumber: number,
  options: ResolvedBackoff,
  random: RandomSource,
  retryAfterMs?: number | undefined,
): BackoffResult {
  if (retryAfterMs !== undefined && retryAfterMs > options.maxDelayMs) {
    return { retry: false, reason: 'RETRY_AFTER_TOO_LONG', retryAfterMs };
  }
  const ceiling = Math.min(
    options.maxDelayMs,
    options.baseDelayMs * options.factor ** Math.max(0, retryNumber - 1),
  );
  const unit = clampUnit(random());
  const floor = options.jitter === 'full' ? 0 : ceiling / 2;
  const jittered = Math.round(floor + unit * (ceiling - floor));
  return { retry: true, delayMs: Math.max(jittered, Math.ceil(retryAfterMs ?? 0)) };
}

function clampUnit(value: number): number {
  return Number.isFinite(value) ? Math.min(Math.max(value, 0), 1) : 0.5;
}
