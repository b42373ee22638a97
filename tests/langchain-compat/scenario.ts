// The compat scenario of @recourse/langchain, run by the oldest and the newest end of its
// peer range (tests/langchain-compat-oldest, tests/langchain-compat). Everything that
// depends on the LangChain version is passed in: each end resolves its own.
import { createRequire } from 'node:module';
import { callContext, createRecovery, recoveryContractOf } from '@recourse/langchain';
import { createScriptedProvider, startProviderServer, text, toolCall } from '@recourse/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

/** The part of one LangChain version the scenario uses; the versions' types do not unify. */
export interface LangChainVersion {
  // biome-ignore lint/suspicious/noExplicitAny: each version has its own tool types
  tool: (...args: any[]) => unknown;
  createAgent: unknown;
  ToolMessage: abstract new (...args: never[]) => unknown;
  /** `@langchain/openai`'s ChatOpenAI of the same @langchain/core. */
  ChatOpenAI: new (
    fields: Record<string, unknown>,
  ) => unknown;
}

type Agent = { invoke(input: unknown): Promise<{ messages: unknown[] }> };

/**
 * The scenario against the langchain, @langchain/core and ChatOpenAI that `testFile` (the
 * calling test's `import.meta.url`) resolves, named by their versions.
 */
export function describeCompatScenario(testFile: string, lc: LangChainVersion): void {
  const require = createRequire(testFile);
  const version = (name: string) =>
    (require(`${name}/package.json`) as { version: string }).version;
  const label = `langchain ${version('langchain')}, @langchain/core ${version('@langchain/core')}`;
  const provider = createScriptedProvider();
  let running: ReturnType<typeof startProviderServer> | undefined;
  beforeAll(() => {
    running = startProviderServer(provider);
  });
  afterAll(() => running?.close());

  describe(label, () => {
    it('broken arguments repaired, a lost refund reconciled once, a 403 ends the loop BLOCKED', async () => {
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
      const args = { paymentId: 'p-42', amount: 100 };
      provider.reset([
        toolCall('refund_payment', '{"paymentId": "p-42", "amo'), // lands in invalid_tool_calls
        toolCall('refund_payment', args),
        toolCall('refund_payment', args),
        toolCall('github_api', { repo: 'acme/secret' }),
        text('never asked'),
      ]);
      const recovery = createRecovery({
        runId: `compat-${label}`,
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
      const model = new lc.ChatOpenAI({
        model: 'gpt-4o',
        apiKey: 'test',
        maxRetries: 0,
        configuration: { baseURL: provider.baseURL },
      });
      const createAgent = lc.createAgent as (params: unknown) => Agent;
      const agent = createAgent({
        model,
        tools: [refund, github],
        middleware: [recovery.middleware],
      });

      const result = await agent.invoke({ messages: [{ role: 'user', content: 'Refund p-42' }] });

      expect(refunds).toHaveLength(1);
      expect(provider.requests).toHaveLength(4); // no model call after the 403
      const outputs = provider.toolResults().map((r) => r.output);
      expect(JSON.parse(outputs[0] ?? '')).toMatchObject({ recommended_recovery: 'REPAIR' });
      expect(outputs.slice(1)).toEqual(['refunded', 'refunded']);
      // The adapter answered with this version's message class: it resolved this langchain.
      expect(result.messages.at(-1)).toBeInstanceOf(lc.ToolMessage);
      expect(recoveryContractOf(result.messages.at(-1))).toMatchObject({
        failure_class: 'AUTHORIZATION',
      });
      expect(recovery.outcome()).toMatchObject({
        status: 'BLOCKED',
        completed_steps: ['refund_payment'],
      });
    });
  });
}
