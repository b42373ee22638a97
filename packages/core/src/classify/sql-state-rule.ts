import { transient, type Verdict, verdict } from './verdict.js';

const bySqlState: Readonly<Record<string, Verdict>> = {
  // Rolled back by the server: nothing was applied, so a retry is always safe.
  '40001': transient('TRANSACTION_ROLLBACK'),
  '40P01': transient('TRANSACTION_ROLLBACK'),
  '42501': verdict('AUTHORIZATION', 'FORBIDDEN'),
  '23505': verdict('STALE_STATE', 'ALREADY_EXISTS'),
  '57014': transient('TIMEOUT'), // statement timeout: the statement was cancelled
  '57P01': transient('SERVICE_UNAVAILABLE', true), // admin shutdown
  '57P03': transient('SERVICE_UNAVAILABLE'), // cannot connect now
  '55P03': transient('TRANSACTION_ROLLBACK'), // lock not available
  '08001': transient('CONNECTION_REFUSED'),
  '08004': transient('CONNECTION_REFUSED'),
};

const byClass: Readonly<Record<string, Verdict>> = {
  '08': transient('CONNECTION_RESET', true), // connection exception
  '22': verdict('VALIDATION', 'INVALID_INPUT'), // data exception
  '23': verdict('VALIDATION', 'INVALID_INPUT'), // integrity constraint violation
  '28': verdict('AUTHORIZATION', 'NOT_AUTHORIZED'), // invalid authorization
  '42': verdict('VALIDATION', 'INVALID_INPUT'), // syntax error or access rule
  '53': transient('SERVICE_UNAVAILABLE'), // insufficient resources
};

/** The table's answer for a PostgreSQL SQLSTATE. */
export function classifySqlState(sqlState: string): Verdict | undefined {
  return bySqlState[sqlState] ?? byClass[sqlState.slice(0, 2)];
}
