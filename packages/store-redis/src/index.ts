export { RedisLedger } from './redis-ledger.js';
export { defaultKeyPrefix, type RedisLedgerOptions } from './redis-ledger-options.js';
export { createRedisRetryBudget, type RedisRetryBudget } from './redis-retry-budget.js';
export type {
  RedisRetryBudgetOptions,
  RedisRetryBudgetTarget,
} from './redis-retry-budget-options.js';
