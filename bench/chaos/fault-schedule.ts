import type { StepSpec } from './job-steps.js';
import { drawFor } from './prng.js';

export const faultKinds = [
  'timeout-before-write',
  'timeout-after-write',
  'rate-limited',
  'unavailable-burst',
  'validation',
  'forbidden',
  'stale-state',
] as const;
export type FaultKind = (typeof faultKinds)[number];

/** Relative weights of the fault kinds: the mix. */
export type FaultMix = Record<FaultKind, number>;

export const defaultFaultMix: FaultMix = {
  'timeout-before-write': 15,
  'timeout-after-write': 20,
  'rate-limited': 15,
  'unavailable-burst': 20,
  validation: 12,
  forbidden: 3,
  'stale-state': 15,
};

/** What goes wrong for one operation (a job's step). Decided once, by seed, per operation. */
export type FaultPlan =
  | { kind: 'none' }
  | { kind: 'timeout-before-write' | 'timeout-after-write'; requests: number }
  | { kind: 'rate-limited'; requests: number; retryAfterS: number }
  | { kind: 'unavailable-burst'; burstMs: number }
  | { kind: 'validation' | 'forbidden' | 'stale-state' };

export interface FaultScheduleOptions {
  seed: number;
  /** Probability that an operation has a fault, 0..1. */
  rate: number;
  mix?: FaultMix | undefined;
}

/** Faults that only make sense for a write (reads have no write to lose or version to check). */
const writeOnly = new Set<FaultKind>(['timeout-after-write', 'stale-state']);

/**
 * The seeded fault schedule. A plan depends only on (seed, operation), never on the order
 * in which strategies send requests, so every strategy meets the same faults.
 */
export function planFault(
  options: FaultScheduleOptions,
  operation: string,
  step: StepSpec,
): FaultPlan {
  if (drawFor(options.seed, operation, 'has-fault') >= options.rate) return { kind: 'none' };
  const mix = options.mix ?? defaultFaultMix;
  const kinds = faultKinds.filter((kind) => step.kind === 'write' || !writeOnly.has(kind));
  const total = kinds.reduce((sum, kind) => sum + mix[kind], 0);
  const pick = drawFor(options.seed, operation, 'kind') * total;
  let below = 0;
  const kind =
    kinds.find((k) => {
      below += mix[k];
      return pick < below;
    }) ?? kinds[kinds.length - 1]!;
  const extra = drawFor(options.seed, operation, 'extent');
  switch (kind) {
    case 'timeout-before-write':
    case 'timeout-after-write':
      return { kind, requests: 1 + Math.floor(extra * 3) };
    case 'rate-limited': {
      // Retry-After from 1 s to 40 s: what rate limiters of real APIs ask for.
      const retryAfterS = 1 + Math.floor(drawFor(options.seed, operation, 'retry-after') * 40);
      return { kind, requests: 1 + Math.floor(extra * 3), retryAfterS };
    }
    case 'unavailable-burst':
      // From half a second to 20 s: a deploy, a failover, a restart.
      return { kind, burstMs: 500 + Math.round(extra * 19_500) };
    default:
      return { kind };
  }
}
