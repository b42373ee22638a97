import { LedgerUnavailableError, RecourseError } from '@recourse/core/store';

/**
 * Any failure talking to PostgreSQL (refused, terminated, timeouts, admin shutdown, too
 * many connections, a missing privilege) becomes `LedgerUnavailableError('postgres', …)`
 * with the original as `cause`: the caller must not execute without a claim. Our own
 * errors (`LeaseLostError`, …) pass through untouched.
 */
export function toLedgerError(error: unknown, target?: string | undefined): unknown {
  if (RecourseError.isInstance(error)) return error;
  return new LedgerUnavailableError('postgres', describePostgresFailure(error), {
    cause: error,
    target,
  });
}

interface ConnectionOptions {
  host?: unknown;
  port?: unknown;
  connectionString?: unknown;
}

/**
 * Where the pool connects, as host:port (never the user or password), the way pg resolves
 * it: the connection string, else the pool's host and port, else PGHOST / PGPORT, else
 * localhost:5432. Undefined when it cannot tell (a connection string that is not a URL).
 */
export function postgresTarget(options: ConnectionOptions): string | undefined {
  let host = typeof options.host === 'string' ? options.host : undefined;
  let port =
    typeof options.port === 'number' || typeof options.port === 'string' ? options.port : undefined;
  if (typeof options.connectionString === 'string') {
    try {
      const url = new URL(options.connectionString);
      host = url.hostname === '' ? host : decodeURIComponent(url.hostname);
      port = url.port === '' ? port : url.port;
    } catch {
      return undefined;
    }
  }
  return `${host ?? process.env.PGHOST ?? 'localhost'}:${port ?? process.env.PGPORT ?? 5432}`;
}

function describePostgresFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? `${code}: ${error.message}` : error.message;
}
