import { statusOf } from '../downstream-errors.js';
import type { StepOutcome } from './strategy.js';

/**
 * What a plain retry wrapper hands back after it gives up: the raw error. The simulated
 * agent reads its status the way a model reads the error text: 422 → fix the arguments,
 * 412 → re-read and try again, 403 → stop, anything else → give up on the job.
 */
export function outcomeFromError(error: unknown): StepOutcome {
  const status = statusOf(error);
  if (status === 422) return { ok: false, next: 'repair', inDoubt: false };
  if (status === 412) return { ok: false, next: 'reobserve', inDoubt: false };
  if (status === 403) return { ok: false, next: 'blocked', inDoubt: false };
  return { ok: false, next: 'abort', inDoubt: false };
}

let keySequence = 0;

/** The anti-pattern under test: a fresh idempotency key for every attempt. */
export function freshKey(operation: string): string {
  keySequence++;
  return `${operation}#attempt-${keySequence}`;
}
