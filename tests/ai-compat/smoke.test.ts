// One smoke scenario of @recourse/ai-sdk, run against ai@5, ai@6 and ai@7 (installed under
// aliases with the matching @ai-sdk/openai), to keep the peer range `ai >=5 <8` honest.
import { createRecovery } from '@recourse/ai-sdk';
import { callContext } from '@recourse/core';
import {
  createScriptedProvider,
  type ProviderServer,
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
import { z } from 'zod';

// biome-ignore lint/suspicious/noExplicitAny: each version's functions have their own types
type Loose = (...args: any[]) => any;

interface AiVersion {
  label: string;
  generateText: Loose;
  tool: Loose;
  stepCount: (n: number) => unknown;
  createOpenAI: Loose;
}

const versions: AiVersion[] = [
  // ai@5 and ai@6 name it `stepCountIs`; ai@7 renamed it `isStepCount` (keeping an alias).
  {
    label: 'ai@5',
    generateText: ai5.generateText,
    tool: ai5.tool,
    stepCount: ai5.stepCountIs,
    createOpenAI: createOpenAIv2,
  },
  {
    label: 'ai@6',
    generateText: ai6.generateText,
    tool: ai6.tool,
    stepCount: ai6.stepCountIs,
    createOpenAI: createOpenAIv3,
  },
  {
    label: 'ai@7',
    generateText: ai7.generateText,
    tool: ai7.tool,
    stepCount: ai7.isStepCount,
    createOpenAI: createOpenAIv4,
  },
];

const provider = createScriptedProvider();
let running: ProviderServer | undefined;
beforeAll(() => {
  running = startProviderServer(provider);
});
afterAll(() => running?.close());
beforeEach(() => provider.reset([]));

function statusError(status: number): Error & { status: number } {
  return Object.assign(new Error(`Request failed with status ${status}`), { status });
}

function contractIn(output: string): Record<string, unknown> {
  const parsed = JSON.parse(output) as Record<string, unknown>;
  return typeof parsed.error === 'string' ? JSON.parse(parsed.error) : parsed;
}

describe.each(versions)('@recourse/ai-sdk with $label', (v) => {
  const model = () => v.createOpenAI({ baseURL: provider.baseURL, apiKey: 'test' }).chat('gpt-4o');

  it('refund with reconcile: a lost response is applied exactly once', async () => {
    provider.reset([
      toolCall('refund_payment', { paymentId: 'p-42', amount: 100 }),
      toolCall('refund_payment', { paymentId: 'p-42', amount: 100 }),
      text('done'),
    ]);
    const applied: string[] = [];
    const recovery = createRecovery({
      runId: `compat-${v.label}`,
      policies: {
        refund_payment: {
          sideEffects: true,
          reconcile: (_i, { idempotencyKey }) =>
            applied.includes(idempotencyKey)
              ? { happened: true, result: 'refunded' }
              : { happened: false },
        },
      },
    });
    const result = await v.generateText({
      model: model(),
      prompt: 'Refund p-42',
      tools: recovery.tools({
        refund_payment: v.tool({
          inputSchema: z.object({ paymentId: z.string(), amount: z.number() }),
          execute: async () => {
            applied.push(callContext().idempotencyKey);
            if (applied.length === 1) throw new DOMException('timed out', 'TimeoutError');
            return 'refunded';
          },
        }),
      }),
      stopWhen: [v.stepCount(10), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });
    expect(result.text).toBe('done');
    expect(applied).toHaveLength(1);
    expect(provider.toolResults().map((r) => r.output)).toEqual(['refunded', 'refunded']);
    expect(recovery.outcome().status).toBe('COMPLETED');
  });

  it('403 blocks, stopWhen ends the loop, and the shell bypass never runs', async () => {
    provider.reset([
      toolCall('github_api', { repo: 'acme/secret' }),
      toolCall('shell', { command: 'git clone https://github.com/acme/secret' }),
      text('cloned'),
    ]);
    const executed: string[] = [];
    const recovery = createRecovery({ runId: `compat-b-${v.label}` });
    const result = await v.generateText({
      model: model(),
      prompt: 'Read acme/secret',
      tools: recovery.tools({
        github_api: v.tool({
          inputSchema: z.object({ repo: z.string() }),
          execute: async () => {
            executed.push('github_api');
            throw statusError(403);
          },
        }),
        shell: v.tool({
          inputSchema: z.object({ command: z.string() }),
          execute: async () => {
            executed.push('shell');
            return 'ok';
          },
        }),
      }),
      stopWhen: [v.stepCount(10), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });
    expect(result.steps).toHaveLength(1);
    expect(executed).toEqual(['github_api']);
    expect(provider.remaining()).toBe(2);
    expect(recovery.outcome()).toMatchObject({ status: 'BLOCKED' });
  });

  it('the model receives the contract, and the guidance next to the user system prompt', async () => {
    provider.reset([toolCall('merge_pr', { pr: 7 }), text('re-reading')]);
    const recovery = createRecovery({ runId: `compat-c-${v.label}` });
    await v.generateText({
      model: model(),
      system: 'You are the release bot.',
      prompt: 'Merge PR 7',
      tools: recovery.tools({
        merge_pr: v.tool({
          inputSchema: z.object({ pr: z.number() }),
          execute: async () => {
            throw Object.assign(statusError(412), { stack: 'Error: at secret-file.ts:1:1' });
          },
        }),
      }),
      stopWhen: [v.stepCount(10), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });
    const contract = contractIn(provider.toolResults()[0]!.output);
    expect(contract).toMatchObject({
      failure_class: 'STALE_STATE',
      recommended_recovery: 'REOBSERVE',
      retry_same_action: false,
    });
    const next = provider.requests[1]!;
    expect(next.rawBody).not.toContain('secret-file.ts');
    const messages = next.body.messages as { role: string; content: unknown }[];
    // ai@7 appends the guidance to the instructions; ai@5/6 add it as a user message.
    expect(messages[0]).toMatchObject({ role: 'system' });
    expect(String(messages[0]!.content)).toMatch(/^You are the release bot\./);
    expect(JSON.stringify(messages)).toContain('[recourse] The state merge_pr acted on');
  });
});
