import { LedgerUnavailableError, RecourseError } from '@recourse/core/store';

/**
 * Any failure talking to PostgreSQL (refused, terminated, timeouts, admin shutdown, too
 * many connections, a missing privilege) becomes `LedgerUnavailableError('postgres', …)`
 * with the original as `cause`: the caller must not execute without a claim. Our own
 * errors (`LeaseLostError`, …) pass through untouched.
 */
export function toLedgerError(error: unknown): unknown {
  if (RecourseError.isInstance(error)) return error;
  return new LedgerUnavailableError('postgres', describePostgresFailure(error), { cause: error });
}

function describePostgresFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? `${code}: ${error.message}` : error.message;
}
