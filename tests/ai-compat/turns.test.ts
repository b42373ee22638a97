// The calls of one step (one model response), which every supported `ai` runs side by side:
// recourse recognises the turn by the step's `messages` array, in ai@5, ai@6 and ai@7, in
// generateText and streamText. In-flight counts and the downstream's record, never times.
import { createRecovery } from '@recourse/ai-sdk';
import {
  createScriptedProvider,
  type ProviderServer,
  type ScriptStep,
  startProviderServer,
  text,
  toolCall,
} from '@recourse/testing';
import * as ai5 from 'ai-v5';
import * as ai6 from 'ai-v6';
import * as ai7 from 'ai-v7';
import { createOpenAI as createOpenAIv2 } from 'openai-provider-v2';
import { createOpenAI as createOpenAIv3 } from 'openai-provider-v3';
import { createOpenAI as createOpenAIv4 } from 'openai-provider-v4';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createTurnShop,
  turnPolicies,
} from '../../packages/ai-sdk-adapter/test-support/turn-shop.js';

// biome-ignore lint/suspicious/noExplicitAny: each version's functions have their own types
type Loose = (...args: any[]) => any;

const versions: {
  label: string;
  ai: { generateText: Loose; streamText: Loose; tool: Loose; stepCountIs: Loose };
  createOpenAI: Loose;
}[] = [
  { label: 'ai@5', ai: ai5, createOpenAI: createOpenAIv2 },
  { label: 'ai@6', ai: ai6, createOpenAI: createOpenAIv3 },
  { label: 'ai@7', ai: ai7, createOpenAI: createOpenAIv4 },
];
const cases = versions.flatMap((version) =>
  (['generateText', 'streamText'] as const).map((loop) => ({ ...version, loop })),
);

const provider = createScriptedProvider();
let running: ProviderServer;
beforeAll(() => {
  running = startProviderServer(provider);
});
afterAll(() => running.close());
beforeEach(() => {
  provider.reset([]);
  running.server.resetHandlers();
});

type Step = { toolResults: readonly { toolName: string; output: unknown }[] };

describe.each(cases)('calls of one turn: $label $loop', (v) => {
  const run = async (script: ScriptStep[], options: { parallelWrites?: boolean } = {}) => {
    provider.reset(script);
    const shop = createTurnShop();
    running.server.use(...shop.handlers);
    const recovery = createRecovery({ runId: 'compat-turn', policies: turnPolicies, ...options });
    const t = shop.tools;
    const tools = recovery.tools({
      refund_payment: v.ai.tool(t.refund_payment),
      get_payment: v.ai.tool(t.get_payment),
      send_email: v.ai.tool(t.send_email),
      read_file: v.ai.tool(t.read_file),
    });
    const settings = {
      model: v.createOpenAI({ baseURL: provider.baseURL, apiKey: 'test' }).chat('gpt-4o'),
      prompt: 'Go',
      tools,
      stopWhen: [v.ai.stepCountIs(3), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    };
    const steps: Step[] =
      v.loop === 'generateText'
        ? (await v.ai.generateText(settings)).steps
        : await v.ai.streamText(settings).steps;
    const outputOf = (name: string) =>
      steps[0]?.toolResults.find((part) => part.toolName === name)?.output;
    return { shop, recovery, outputOf };
  };

  it('a denial refuses the later write and the overlapping read of its turn; neither runs', async () => {
    const { shop, recovery, outputOf } = await run([
      [
        toolCall('refund_payment', { paymentId: 'p-1' }),
        toolCall('send_email', { to: 'customer@example.test' }),
        toolCall('get_payment', { paymentId: 'p-1' }),
        toolCall('read_file', { path: '/srv/app/README.md' }),
      ],
      text('we refunded you'),
    ]);
    expect(shop.requests.sort()).toEqual(['file /srv/app/README.md', 'refund p-1']);
    expect(outputOf('send_email')).toMatchObject({ code: 'RUN_STOPPED' });
    expect(outputOf('get_payment')).toMatchObject({ code: 'DENIED_EARLIER' });
    expect(recovery.outcome().status).toBe('BLOCKED');
  });

  it('unrelated reads of a turn run side by side', async () => {
    const { shop } = await run([
      [
        toolCall('read_file', { path: '/srv/app/a.txt' }),
        toolCall('read_file', { path: '/srv/app/b.txt' }),
      ],
      text('done'),
    ]);
    expect(shop.counts.maxInFlight).toBe(2);
  });

  it('parallelWrites: the writes of a turn run side by side', async () => {
    const { shop } = await run(
      [
        [
          toolCall('refund_payment', { paymentId: 'p-2' }),
          toolCall('send_email', { to: 'customer@example.test' }),
        ],
        text('done'),
      ],
      { parallelWrites: true },
    );
    expect(shop.counts.maxInFlight).toBe(2);
    expect(shop.requests.sort()).toEqual(['email customer@example.test', 'refund p-2']);
  });
});
