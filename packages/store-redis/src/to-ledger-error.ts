import { LedgerUnavailableError, RecourseError } from '@recourse/core/store';

/**
 * Any failure talking to Redis (refused, closed, retries spent, command timeout, a
 * server that is loading or read-only) becomes `LedgerUnavailableError('redis', …)`:
 * the caller must not execute without a claim, and may retry later. Our own errors
 * (`LeaseLostError`, …) pass through untouched.
 */
export function toLedgerError(error: unknown): unknown {
  if (RecourseError.isInstance(error)) return error;
  return new LedgerUnavailableError('redis', describeRedisFailure(error), { cause: error });
}

function describeRedisFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  if (error.name === 'MaxRetriesPerRequestError') return 'connection retries exhausted';
  if (typeof code === 'string' && code.startsWith('E')) return `${code}: ${error.message}`;
  return error.message;
}
