import { createRecovery } from '@recourse/ai-sdk';
import { text, toolCall } from '@recourse/testing';
import { isStepCount, streamText, ToolLoopAgent, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createDownstream,
  failureIn,
  httpFailure,
  useScriptedProvider,
} from '../test-support/harness.js';

const { provider, chat, responses } = useScriptedProvider();
const refundArgs = { paymentId: 'p-42', amount: 100 };

function setUpRefund() {
  const downstream = createDownstream();
  let calls = 0;
  const recovery = createRecovery({
    runId: 'run-sa',
    policies: {
      refund_payment: {
        sideEffects: true,
        reconcile: (_input, { idempotencyKey }) =>
          downstream.findByKey(idempotencyKey)
            ? { happened: true, result: 'refunded' }
            : { happened: false },
      },
    },
  });
  const tools = recovery.tools({
    refund_payment: tool({
      inputSchema: z.object({ paymentId: z.string(), amount: z.number() }),
      execute: async (input) => downstream.apply(input, ++calls === 1),
    }),
  });
  return { downstream, recovery, tools };
}

function setUpDenial() {
  const executed: string[] = [];
  const recovery = createRecovery({ runId: 'run-sb' });
  const tools = recovery.tools({
    github_api: tool({
      inputSchema: z.object({ repo: z.string() }),
      execute: async ({ repo }): Promise<string> => {
        executed.push(`github_api ${repo}`);
        throw httpFailure(403);
      },
    }),
    shell: tool({
      inputSchema: z.object({ command: z.string() }),
      execute: async ({ command }) => {
        executed.push(`shell ${command}`);
        return 'ok';
      },
    }),
  });
  return { executed, recovery, tools };
}

const refundScript = () => [
  toolCall('refund_payment', refundArgs),
  toolCall('refund_payment', refundArgs),
  text('done'),
];
const denialScript = () => [
  toolCall('github_api', { repo: 'acme/secret' }),
  toolCall('shell', { command: 'git clone https://github.com/acme/secret' }),
  text('cloned'),
];

describe.each([
  { label: 'chat', model: chat },
  { label: 'responses', model: responses },
])('streamText over $label', ({ model }) => {
  it('refund: applied once, the repeat answered from the ledger', async () => {
    provider.reset(refundScript());
    const { downstream, recovery, tools } = setUpRefund();
    const result = streamText({
      model: model(),
      prompt: 'Refund p-42',
      tools,
      stopWhen: [isStepCount(10), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });
    expect(await result.text).toBe('done');
    expect(downstream.applied).toHaveLength(1);
    expect(provider.toolResults().map((r) => r.output)).toEqual(['refunded', 'refunded']);
    expect(recovery.outcome().status).toBe('COMPLETED');
  });

  it('403: BLOCKED, the loop ends, the shell bypass never runs', async () => {
    provider.reset(denialScript());
    const { executed, recovery, tools } = setUpDenial();
    const result = streamText({
      model: model(),
      prompt: 'Read acme/secret',
      tools,
      stopWhen: [isStepCount(10), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });
    const steps = await result.steps;
    expect(steps).toHaveLength(1);
    expect(executed).toEqual(['github_api acme/secret']);
    expect(failureIn(steps[0]).contract.status).toBe('BLOCKED');
    expect(recovery.outcome().status).toBe('BLOCKED');
  });
});

describe('ToolLoopAgent', () => {
  it('refund: applied once', async () => {
    provider.reset(refundScript());
    const { downstream, recovery, tools } = setUpRefund();
    const agent = new ToolLoopAgent({
      model: chat(),
      instructions: 'You handle refunds.',
      tools,
      stopWhen: [isStepCount(10), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });
    const result = await agent.generate({ prompt: 'Refund p-42' });
    expect(result.text).toBe('done');
    expect(downstream.applied).toHaveLength(1);
    expect(new Set(downstream.requests.map((r) => r.key)).size).toBe(1);
  });

  it('403: BLOCKED and the loop ends (stream)', async () => {
    provider.reset(denialScript());
    const { executed, recovery, tools } = setUpDenial();
    const agent = new ToolLoopAgent({
      model: chat(),
      tools,
      stopWhen: [isStepCount(10), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });
    const result = await agent.stream({ prompt: 'Read acme/secret' });
    expect(await result.steps).toHaveLength(1);
    expect(executed).toEqual(['github_api acme/secret']);
    expect(provider.remaining()).toBe(2);
    expect(recovery.outcome()).toMatchObject({ status: 'BLOCKED' });
  });
});
