import { type Clock, systemClock } from '../clock.js';
import { InvalidOptionsError } from '../errors.js';
import { defaultLeaseMs, defaultRetentionMs, type LedgerOptions } from './ledger.js';

export interface ResolvedLedgerOptions {
  leaseMs: number;
  retentionMs: number;
  clock: Clock;
}

/** Fills in defaults and rejects nonsense early, naming the field. */
export function resolveLedgerOptions(options: LedgerOptions = {}): ResolvedLedgerOptions {
  const leaseMs = options.leaseMs ?? defaultLeaseMs;
  const retentionMs = options.retentionMs ?? defaultRetentionMs;
  if (!Number.isFinite(leaseMs) || leaseMs <= 0) {
    throw new InvalidOptionsError(
      'leaseMs',
      `must be a positive number of milliseconds, got ${leaseMs}`,
    );
  }
  if (!Number.isFinite(retentionMs) || retentionMs <= 0) {
    throw new InvalidOptionsError(
      'retentionMs',
      `must be a positive number of milliseconds, got ${retentionMs}`,
    );
  }
  return { leaseMs, retentionMs, clock: options.clock ?? systemClock };
}
