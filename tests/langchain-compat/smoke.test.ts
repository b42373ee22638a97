import { ChatOpenAI } from '@langchain/openai';
import { callContext, createRecovery, recoveryContractOf } from '@recourse/langchain';
import { createScriptedProvider, startProviderServer, text, toolCall } from '@recourse/testing';
import * as newest from 'langchain-newest';
import * as oldest from 'langchain-oldest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

// The oldest and the newest langchain of @recourse/langchain's peer range (langchain ^1.2.0),
// each with its own createAgent, against the same scripted provider.
const versions = [
  ['langchain 1.2.0 (oldest)', oldest],
  ['langchain 1.x (newest)', newest],
] as const;

const provider = createScriptedProvider();
let running: ReturnType<typeof startProviderServer>;
beforeAll(() => {
  running = startProviderServer(provider);
});
afterAll(() => running.close());
const model = () =>
  new ChatOpenAI({
    model: 'gpt-4o',
    apiKey: 'test',
    maxRetries: 0,
    configuration: { baseURL: provider.baseURL },
  });

describe.each(versions)('%s', (_name, lc) => {
  it('a lost refund is reconciled once; a 403 ends the loop BLOCKED', async () => {
    const refunds: string[] = [];
    let lose = true;
    const refund = lc.tool(
      async () => {
        refunds.push(callContext().idempotencyKey);
        if (lose) {
          lose = false;
          throw new DOMException('The operation was aborted due to timeout', 'TimeoutError');
        }
        return 'refunded';
      },
      {
        name: 'refund_payment',
        description: 'Refund a payment',
        schema: z.object({ paymentId: z.string(), amount: z.number() }),
      },
    );
    const github = lc.tool(
      async () => {
        throw Object.assign(new Error('Forbidden'), { status: 403 });
      },
      {
        name: 'github_api',
        description: 'Read a repository',
        schema: z.object({ repo: z.string() }),
      },
    );
    provider.reset([
      toolCall('refund_payment', { paymentId: 'p-42', amount: 100 }),
      toolCall('refund_payment', { paymentId: 'p-42', amount: 100 }),
      toolCall('github_api', { repo: 'acme/secret' }),
      text('never asked'),
    ]);
    const recovery = createRecovery({
      runId: `compat-${_name}`,
      policies: {
        refund_payment: {
          sideEffects: true,
          reconcile: (_input, { idempotencyKey }) =>
            refunds.includes(idempotencyKey)
              ? { happened: true, result: 'refunded' }
              : { happened: false },
        },
        github_api: { sideEffects: false },
      },
    });
    // The two versions' types do not unify: the agent is used through the part both share.
    const createAgent = lc.createAgent as (params: unknown) => {
      invoke(input: unknown): Promise<{ messages: unknown[] }>;
    };
    const agent = createAgent({
      model: model(),
      tools: [refund, github],
      middleware: [recovery.middleware],
    });

    const result = await agent.invoke({ messages: [{ role: 'user', content: 'Refund p-42' }] });

    expect(refunds).toHaveLength(1);
    expect(provider.requests).toHaveLength(3); // no model call after the 403
    expect(provider.toolResults().map((r) => r.output)).toEqual(['refunded', 'refunded']);
    expect(recoveryContractOf(result.messages.at(-1))).toMatchObject({
      failure_class: 'AUTHORIZATION',
    });
    expect(recovery.outcome()).toMatchObject({
      status: 'BLOCKED',
      completed_steps: ['refund_payment'],
    });
  });
});
