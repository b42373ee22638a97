import { randomUUID } from 'node:crypto';
import { callContext, createRecovery } from '@recourse/langchain';
import { PostgresLedger } from '@recourse/store-postgres';
import { type ScriptEntry, text, toolCall } from '@recourse/testing';
import { createAgent, tool } from 'langchain';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { useScriptedProvider } from '../test-support/harness.js';
import { createPayments, currentKey, postRefund } from '../test-support/payments.js';

const { provider, model, use } = useScriptedProvider();
const postgresUrl = process.env.RECOURSE_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const table = `langchain_workers_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
const ledgers: PostgresLedger[] = [];
afterAll(async () => {
  await Promise.all(ledgers.map((ledger) => ledger.close()));
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  await client.query(`DROP TABLE IF EXISTS ${table}, ${table}_repairs, ${table}_facts`);
  await client.end();
});

const refundArgs = { paymentId: 'p-42', amount: 100 };
// Each worker's model asks for the refund, then (with its result) says it is done.
const step: ScriptEntry = (request) =>
  request.toolResults.length > 0 ? text('done') : toolCall('refund_payment', refundArgs);
const refund = tool(async (input) => postRefund(input, currentKey(), { timeoutMs: 5_000 }), {
  name: 'refund_payment',
  description: 'Refund a payment',
  schema: z.object({ paymentId: z.string(), amount: z.number() }),
});
const prompt = { messages: [{ role: 'user' as const, content: 'Refund p-42' }] };

describe('two workers of one run on one PostgreSQL ledger', () => {
  it('send the refund once; the other worker gets its result', async () => {
    // The first refund is held until both workers' models have asked for it.
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const payments = createPayments();
    use(...payments.handlers);
    let asked = 0;
    const stepThenRelease: ScriptEntry = (request) => {
      if (request.toolResults.length === 0 && ++asked === 2) release();
      return step(request);
    };
    const workers = [0, 1].map(() => {
      const ledger = new PostgresLedger({ connectionString: postgresUrl, table });
      ledgers.push(ledger);
      const recovery = createRecovery({
        runId: 'run-workers-1',
        ledger,
        policies: { refund_payment: { sideEffects: true } },
      });
      const slow = tool(
        async (input) => {
          await held;
          return postRefund(input, callContext().idempotencyKey, { timeoutMs: 5_000 });
        },
        { name: 'refund_payment', description: 'Refund a payment', schema: refund.schema },
      );
      return {
        recovery,
        agent: createAgent({ model: model(), tools: [slow], middleware: [recovery.middleware] }),
      };
    });
    provider.reset([stepThenRelease, stepThenRelease, step, step]);

    const results = await Promise.all(workers.map(({ agent }) => agent.invoke(prompt)));

    expect(payments.requests).toHaveLength(1);
    expect(payments.applied).toHaveLength(1);
    expect(results.map((r) => r.messages.at(-1)?.text)).toEqual(['done', 'done']);
    const answers = results.map((r) => r.messages.find((m) => m.type === 'tool')?.text);
    expect(answers[0]).toBe(answers[1]);
    for (const { recovery } of workers) expect(recovery.outcome().status).toBe('COMPLETED');
  });

  it('without recourse (the baseline): each worker sends it', async () => {
    const payments = createPayments();
    use(...payments.handlers);
    provider.reset([step, step, step, step]);
    const agents = [0, 1].map(() => createAgent({ model: model(), tools: [refund] }));

    await Promise.all(agents.map((agent) => agent.invoke(prompt)));

    console.log(
      `two workers, one refund: LangChain alone made ${payments.applied.length - 1} duplicate refund(s)`,
    );
    expect(payments.applied).toHaveLength(2);
  });
});
