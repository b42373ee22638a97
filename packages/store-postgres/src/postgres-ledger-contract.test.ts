import { describeLedgerContract } from '@recourse/core/testing';
import { Pool } from 'pg';
import { afterAll } from 'vitest';
import { PostgresLedger } from './index.js';

const connectionString =
  process.env.RECOURSE_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const tables = new Set<string>();

// Each test gets its own tables (named by its namespace); each handle is a separate pool.
describeLedgerContract(
  'PostgresLedger',
  ({ clock, leaseMs, retentionMs, namespace }) => {
    tables.add(namespace);
    return new PostgresLedger({ connectionString, clock, leaseMs, retentionMs, table: namespace });
  },
  { handles: 4 },
);

afterAll(async () => {
  const admin = new Pool({ connectionString });
  for (const table of tables) {
    await admin.query(`DROP TABLE IF EXISTS "${table}", "${table}_repairs", "${table}_facts"`);
  }
  await admin.end();
});
