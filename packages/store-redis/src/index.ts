export { RedisLedger } from './redis-ledger.js';
export { defaultKeyPrefix, type RedisLedgerOptions } from './redis-ledger-options.js';
