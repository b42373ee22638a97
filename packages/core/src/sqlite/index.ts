export { SqliteLedger, type SqliteLedgerOptions } from './sqlite-ledger.js';
