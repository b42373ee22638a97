import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, interrupt, MemorySaver } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { SqliteLedger } from '@recourse/core/sqlite';
import { callContext, createRecovery, MemoryLedger } from '@recourse/langchain';
import { text, toolCall } from '@recourse/testing';
import {
  type AgentMiddleware,
  createAgent,
  createMiddleware,
  humanInTheLoopMiddleware,
  tool,
} from 'langchain';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { useScriptedProvider } from '../test-support/harness.js';
import { createPayments, currentKey, findRefund, postRefund } from '../test-support/payments.js';

const { provider, model, use } = useScriptedProvider();
const refundArgs = { paymentId: 'p-42', amount: 100 };
const schema = z.object({ paymentId: z.string(), amount: z.number() });
const prompt = { messages: [{ role: 'user' as const, content: 'Refund p-42' }] };
// Each step's checkpoint is written before the next step starts (LangGraph's default,
// "async", writes it while the next step runs: a crash in that step could come first).
const thread = (id: string) => ({ configurable: { thread_id: id }, durability: 'sync' as const });

const reconcileByKey = {
  sideEffects: true,
  reconcile: async (_input: unknown, { idempotencyKey }: { idempotencyKey: string }) =>
    (await findRefund(idempotencyKey))
      ? { happened: true as const, result: 'refunded (found by its key)' }
      : { happened: false as const },
};

describe('a paused run resumed from its checkpointer keeps its keys', () => {
  it('an interrupt() inside the refund: resumed by a new recovery, same key, one refund', async () => {
    const payments = createPayments();
    use(...payments.handlers);
    provider.reset([toolCall('refund_payment', refundArgs), text('refunded')]);
    const keys: string[] = [];
    const refund = tool(
      async (input) => {
        const key = callContext().idempotencyKey;
        keys.push(key);
        const answer = interrupt({
          question: `Refund ${input.amount} on ${input.paymentId}?`,
          key,
        });
        if (answer !== 'approve') return 'not approved';
        return postRefund(input, key);
      },
      { name: 'refund_payment', description: 'Refund a payment', schema },
    );
    // The process that paused and the one that resumes share only durable things.
    const checkpointer = new MemorySaver();
    const ledger = new MemoryLedger();
    const agentOf = (recovery: ReturnType<typeof createRecovery>) =>
      createAgent({
        model: model(),
        tools: [refund],
        checkpointer,
        middleware: [recovery.middleware],
      });
    const before = createRecovery({ ledger, policies: { refund_payment: { sideEffects: true } } });

    const paused = await agentOf(before).invoke(prompt, thread('thread-7'));

    expect(paused.__interrupt__?.[0]?.value).toMatchObject({ key: keys[0] });
    expect(payments.requests).toHaveLength(0);
    expect(before.runId).toBe('thread-7');
    const after = createRecovery({ ledger, policies: { refund_payment: { sideEffects: true } } });
    const resumed = await agentOf(after).invoke(
      new Command({ resume: 'approve' }),
      thread('thread-7'),
    );

    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[0]).toMatch(/^thread-7:refund_payment:/);
    expect(payments.applied.map((r) => r.key)).toEqual([keys[0]]);
    expect(resumed.messages.at(-1)?.text).toBe('refunded');
    expect(after.outcome()).toMatchObject({
      status: 'COMPLETED',
      completed_steps: ['refund_payment'],
    });
  });

  it('humanInTheLoopMiddleware: approved after the pause, the refund runs once under the thread key', async () => {
    const payments = createPayments();
    use(...payments.handlers);
    provider.reset([toolCall('refund_payment', refundArgs), text('refunded')]);
    const refund = tool(async (input) => postRefund(input, callContext().idempotencyKey), {
      name: 'refund_payment',
      description: 'Refund a payment',
      schema,
    });
    const recovery = createRecovery({ policies: { refund_payment: { sideEffects: true } } });
    // LangChain's own types reject this call under exactOptionalPropertyTypes (its zod v3
    // schema types); the call itself is as documented.
    const approvals = (humanInTheLoopMiddleware as unknown as (config: unknown) => AgentMiddleware)(
      {
        interruptOn: { refund_payment: true },
      },
    );
    const agent = createAgent({
      model: model(),
      tools: [refund],
      checkpointer: new MemorySaver(),
      middleware: [approvals, recovery.middleware],
    });

    const paused = await agent.invoke(prompt, thread('thread-8'));
    expect(paused.__interrupt__).toHaveLength(1);
    expect(payments.requests).toHaveLength(0);
    await agent.invoke(
      new Command({ resume: { decisions: [{ type: 'approve' }] } }),
      thread('thread-8'),
    );

    expect(payments.applied).toHaveLength(1);
    expect(payments.applied[0]?.key).toMatch(/^thread-8:refund_payment:/);
    expect(recovery.outcome().status).toBe('COMPLETED');
  });
});

describe('a crash mid-refund, resumed from a PostgreSQL checkpointer', () => {
  const postgresUrl =
    process.env.RECOURSE_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const checkpoints = `recourse_langchain_${process.pid}`;
  const dir = mkdtempSync(join(tmpdir(), 'recourse-langchain-'));
  const checkpointers: PostgresSaver[] = [];
  afterAll(async () => {
    await Promise.all(checkpointers.map((saver) => saver.end()));
    rmSync(dir, { recursive: true, force: true });
    const client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${checkpoints} CASCADE`);
    await client.end();
  });

  const refund = tool(
    async (input, config) => postRefund(input, currentKey(), { signal: config.signal }),
    { name: 'refund_payment', description: 'Refund a payment', schema },
  );

  async function agentsFor(payments: ReturnType<typeof createPayments>) {
    use(...payments.handlers);
    const checkpointer = PostgresSaver.fromConnString(postgresUrl, { schema: checkpoints });
    checkpointers.push(checkpointer);
    await checkpointer.setup();
    provider.reset([toolCall('refund_payment', refundArgs), text('refunded')]);
    return (middleware: AgentMiddleware[]) =>
      createAgent({ model: model(), tools: [refund], checkpointer, middleware });
  }

  it('killed while the refund is in flight: the restarted run reconciles it, one refund', async () => {
    const crash = new AbortController();
    const payments = createPayments({ answers: ['lose-response'], onApplied: () => crash.abort() });
    const agentWith = await agentsFor(payments);
    const ledgerPath = join(dir, 'ledger.db');
    const policies = { refund_payment: reconcileByKey };
    const first = createRecovery({ ledger: new SqliteLedger({ path: ledgerPath }), policies });
    await expect(
      agentWith([first.middleware]).invoke(prompt, { ...thread('crash-1'), signal: crash.signal }),
    ).rejects.toThrow();
    expect(payments.applied).toHaveLength(1);

    // A new process: a new recovery over the same ledger, the thread resumed from its checkpoint.
    const second = createRecovery({ ledger: new SqliteLedger({ path: ledgerPath }), policies });
    const resumed = await agentWith([second.middleware]).invoke(null, thread('crash-1'));

    expect(payments.requests).toHaveLength(1);
    expect(payments.applied).toHaveLength(1);
    expect(provider.toolResults().map((r) => r.output)).toEqual(['refunded (found by its key)']);
    expect(resumed.messages.at(-1)?.text).toBe('refunded');
    expect(second.outcome()).toMatchObject({
      status: 'COMPLETED',
      completed_steps: ['refund_payment'],
    });
  });

  it('killed after the refund returned, before the checkpoint: recourse answers from the ledger, the baseline refunds twice', async () => {
    const ledger = new SqliteLedger({ path: join(dir, 'ledger-2.db') });
    const policies = { refund_payment: { sideEffects: true } };
    const withRecourse = createPayments();
    const recourseAgent = await agentsFor(withRecourse);
    await expect(
      recourseAgent([processDies, createRecovery({ ledger, policies }).middleware]).invoke(
        prompt,
        thread('crash-2'),
      ),
    ).rejects.toThrow('process died');
    const restarted = createRecovery({ ledger, policies });
    await recourseAgent([restarted.middleware]).invoke(null, thread('crash-2'));

    const baseline = createPayments();
    const baselineAgent = await agentsFor(baseline);
    await expect(baselineAgent([processDies]).invoke(prompt, thread('crash-3'))).rejects.toThrow(
      'process died',
    );
    await baselineAgent([]).invoke(null, thread('crash-3'));

    console.log(
      `crash after the refund, then resume: recourse ${withRecourse.applied.length - 1} duplicate refund(s), LangChain alone ${baseline.applied.length - 1}`,
    );
    expect(withRecourse.applied).toHaveLength(1);
    expect(withRecourse.requests).toHaveLength(1);
    expect(restarted.outcome()).toMatchObject({ status: 'COMPLETED' });
    expect(baseline.applied).toHaveLength(2);
  });
});

/** The process dies right after a tool returned, before LangGraph checkpoints its result. */
const processDies = createMiddleware({
  name: 'ProcessDies',
  wrapToolCall: async (request, handler) => {
    await handler(request);
    throw new Error('process died');
  },
});
