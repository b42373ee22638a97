import { LedgerUnavailableError, RecourseError } from '@recourse/core/store';

/**
 * Any failure talking to Redis (refused, closed, retries spent, command timeout, a
 * server that is loading or read-only) becomes `LedgerUnavailableError('redis', …)`:
 * the caller must not execute without a claim, and may retry later. Our own errors
 * (`LeaseLostError`, …) pass through untouched.
 */
export function toLedgerError(
  error: unknown,
  target?: string | undefined,
  connectionError?: Error | undefined,
): unknown {
  if (RecourseError.isInstance(error)) return error;
  // ioredis rejects commands with "Connection is closed." or retries exhausted; the reason
  // (ECONNREFUSED, ENOTFOUND, …) only reaches the client's 'error' event.
  const reason =
    connectionError === undefined
      ? ''
      : ` (last connection error: ${describeRedisFailure(connectionError)})`;
  return new LedgerUnavailableError('redis', `${describeRedisFailure(error)}${reason}`, {
    cause: error,
    target,
  });
}

function describeRedisFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  if (error.name === 'MaxRetriesPerRequestError') return 'connection retries exhausted';
  if (typeof code === 'string' && code.startsWith('E')) {
    return error.message.includes(code) ? error.message : `${code}: ${error.message}`;
  }
  return error.message;
}

/** host:port of an ioredis client (never its password). */
export function redisTarget(options: {
  host?: unknown;
  port?: unknown;
  path?: unknown;
}): string | undefined {
  if (typeof options.path === 'string' && options.path !== '') return options.path;
  if (typeof options.host !== 'string') return undefined;
  return `${options.host}:${typeof options.port === 'number' ? options.port : 6379}`;
}

/**
 * The code a Redis error reply starts with (`ERR`, `WRONGTYPE`, `READONLY`, …), or
 * undefined for a failure that is not the server's answer (connection, timeout).
 */
export function replyErrorCode(error: unknown): string | undefined {
  if (!(error instanceof Error) || error.name !== 'ReplyError') return undefined;
  return /^[A-Z]+/.exec(error.message)?.[0];
}
