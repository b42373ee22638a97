export { PostgresLedger } from './postgres-ledger.js';
export { defaultTable, type PostgresLedgerOptions } from './postgres-ledger-options.js';
