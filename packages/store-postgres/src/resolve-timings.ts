import {
  type Clock,
  defaultLeaseMs,
  defaultRetentionMs,
  InvalidOptionsError,
  type LedgerOptions,
  systemClock,
} from '@recourse/core';

export interface Timings {
  leaseMs: number;
  retentionMs: number;
  clock: Clock;
}

/** Fills in the shared ledger defaults and rejects nonsense early, naming the field. */
export function resolveTimings(options: LedgerOptions): Timings {
  const leaseMs = options.leaseMs ?? defaultLeaseMs;
  const retentionMs = options.retentionMs ?? defaultRetentionMs;
  checkPositive('leaseMs', leaseMs);
  checkPositive('retentionMs', retentionMs);
  return { leaseMs, retentionMs, clock: options.clock ?? systemClock };
}

export function checkPositive(field: string, value: number): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new InvalidOptionsError(field, `must be a positive number of milliseconds, got ${value}`);
  }
}
