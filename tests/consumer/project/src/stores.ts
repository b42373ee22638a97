// Two workers of one run share a ledger: the same refund is executed once, the second
// worker gets the stored result. Once per store: SQLite, Redis, PostgreSQL.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAI } from '@ai-sdk/openai';
import { createRecovery, type Ledger } from '@recourse/ai-sdk';
import { SqliteLedger } from '@recourse/core/sqlite';
import { PostgresLedger } from '@recourse/store-postgres';
import { RedisLedger } from '@recourse/store-redis';
import { createScriptedProvider, startProviderServer, text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, tool } from 'ai';
import pg from 'pg';
import { z } from 'zod';

const redisUrl = process.env.RECOURSE_REDIS_URL ?? 'redis://127.0.0.1:6379';
const postgresUrl = process.env.RECOURSE_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const provider = createScriptedProvider({
  script: [toolCall('refund_payment', { paymentId: 'p-7', amount: 5 }), text('refunded')],
  onExhausted: 'repeat-last',
});
const server = startProviderServer(provider);
const openai = createOpenAI({ baseURL: provider.baseURL, apiKey: 'test' });

async function twoWorkers(store: string, open: () => Ledger): Promise<void> {
  const runId = `consumer-${store}-${randomUUID()}`;
  const applied: string[] = [];
  for (const worker of ['a', 'b']) {
    provider.reset();
    const ledger = open();
    const recovery = createRecovery({
      runId,
      ledger,
      policies: { refund_payment: { sideEffects: true } },
    });
    try {
      await generateText({
        model: openai('gpt-4o'),
        prompt: 'Refund p-7',
        tools: recovery.tools({
          refund_payment: tool({
            inputSchema: z.object({ paymentId: z.string(), amount: z.number() }),
            execute: async ({ paymentId }) => {
              applied.push(worker);
              return `refunded ${paymentId}`;
            },
          }),
        }),
        stopWhen: [isStepCount(4), recovery.stopWhen],
        prepareStep: recovery.prepareStep,
      });
      assert.equal(
        provider.toolResults()[0]?.output,
        'refunded p-7',
        `${store}: worker ${worker}'s result`,
      );
    } finally {
      // `close` is part of every Ledger: callable on the interface type.
      await ledger.close();
    }
  }
  assert.deepEqual(applied, ['a'], `${store}: executed once, by the first worker`);
}

const sqliteDir = mkdtempSync(join(tmpdir(), 'recourse-consumer-'));
const table = `consumer_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
const keyPrefix = `recourse-consumer:${table}:`;
try {
  await twoWorkers('sqlite', () => new SqliteLedger({ path: join(sqliteDir, 'ledger.sqlite') }));
  await twoWorkers('redis', () => new RedisLedger({ url: redisUrl, keyPrefix }));
  await twoWorkers('postgres', () => new PostgresLedger({ connectionString: postgresUrl, table }));
  console.log('stores: one execution across two workers with SQLite, Redis and PostgreSQL');
} finally {
  server.close();
  rmSync(sqliteDir, { recursive: true, force: true });
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  for (const suffix of ['', '_counters', '_denials'])
    await client.query(`DROP TABLE IF EXISTS ${table}${suffix}`);
  await client.end();
}
