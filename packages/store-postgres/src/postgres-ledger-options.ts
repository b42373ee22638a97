import { InvalidOptionsError, type LedgerOptions } from '@recourse/core/store';
import type { Pool } from 'pg';

export type PostgresLedgerOptions = LedgerOptions & {
  /**
   * Base name of the ledger's tables: `<table>` (records), `<table>_repairs`,
   * `<table>_facts`, and of the channel fact watches listen on. Lower-case letters,
   * digits and `_`, at most 48 characters. Default `recourse_ledger`.
   */
  table?: string | undefined;
  /** Schema of the tables (created if missing). Default: the connection's search_path. */
  schema?: string | undefined;
  /**
   * How often a fact watch checks its listening connection (`SELECT 1`); one left
   * unanswered until the next check makes the watches not live and reconnects. Default 5 s.
   */
  watchHeartbeatMs?: number | undefined;
} & (
    | {
        /** `postgres://` URL or libpq key=value string; the ledger creates, and `close()`
         * ends, its pool. */
        connectionString: string;
        pool?: undefined;
      }
    | {
        /** A pool you own: the ledger never ends it, and handles none of its events. */
        pool: Pool;
        connectionString?: undefined;
      }
  );

export const defaultTable = 'recourse_ledger';

// Unquoted-style identifiers only, so that a name can never smuggle SQL in, and short
// enough that `<table>_repairs` and the watch channel stay under PostgreSQL's 63-byte limit.
const tablePattern = /^[a-z_][a-z0-9_]{0,47}$/;
const schemaPattern = /^[a-z_][a-z0-9_]{0,62}$/;

/** Checks the store-specific options; `leaseMs`/`retentionMs` are checked apart. */
export function validatePostgresTarget(options: PostgresLedgerOptions): void {
  if (options.table !== undefined && !isMatch(tablePattern, options.table)) {
    throw new InvalidOptionsError(
      'table',
      `must match ${tablePattern}, got ${JSON.stringify(options.table)}`,
    );
  }
  if (options.schema !== undefined && !isMatch(schemaPattern, options.schema)) {
    throw new InvalidOptionsError(
      'schema',
      `must match ${schemaPattern}, got ${JSON.stringify(options.schema)}`,
    );
  }
  const heartbeat = options.watchHeartbeatMs;
  if (
    heartbeat !== undefined &&
    !(typeof heartbeat === 'number' && heartbeat > 0 && Number.isFinite(heartbeat))
  ) {
    throw new InvalidOptionsError(
      'watchHeartbeatMs',
      `must be a positive number of milliseconds, got ${heartbeat}`,
    );
  }
  if (options.pool !== undefined) {
    if (options.connectionString !== undefined) {
      throw new InvalidOptionsError(
        'connectionString',
        'give either `connectionString` or `pool`, not both',
      );
    }
    if (
      typeof options.pool !== 'object' ||
      options.pool === null ||
      typeof options.pool.query !== 'function'
    ) {
      throw new InvalidOptionsError('pool', 'must be a pg Pool');
    }
    return;
  }
  if (!isConnectionString(options.connectionString)) {
    throw new InvalidOptionsError(
      'connectionString',
      'must be a postgres:// or postgresql:// URL or a libpq key=value string',
    );
  }
}

function isMatch(pattern: RegExp, value: unknown): boolean {
  return typeof value === 'string' && pattern.test(value);
}

function isConnectionString(value: unknown): boolean {
  if (typeof value !== 'string' || value.trim() === '') return false;
  if (!value.includes('://')) return value.includes('=') || value.startsWith('/');
  if (!URL.canParse(value)) return false;
  const { protocol } = new URL(value);
  return protocol === 'postgres:' || protocol === 'postgresql:';
}
