import { describeLedgerContract } from '@recourse/core/testing';
import { Redis } from 'ioredis';
import { afterAll } from 'vitest';
// The ledger's own module: the package index also exports the retry budget, which needs
// the core's main entry.
import { RedisLedger } from './redis-ledger.js';

const url = process.env.RECOURSE_REDIS_URL ?? 'redis://127.0.0.1:6379';
const root = 'recourse-contract:';

// Each handle is a separate client (a separate connection), like workers sharing Redis.
describeLedgerContract(
  'RedisLedger',
  ({ clock, leaseMs, retentionMs, namespace }) =>
    new RedisLedger({ url, clock, leaseMs, retentionMs, keyPrefix: `${root}${namespace}:` }),
  { handles: 4 },
);

afterAll(async () => {
  const admin = new Redis(url);
  const keys = await admin.keys(`${root}*`);
  if (keys.length > 0) await admin.del(...keys);
  await admin.quit();
});
