// Smoke scenarios of @recourse/ai-sdk, run against ai@5, ai@6 and ai@7 (installed under
// aliases with the matching @ai-sdk/openai), to keep the peer range `ai >=5 <8` honest.
import { createRecovery } from '@recourse/ai-sdk';
import { callContext, urlResource } from '@recourse/core';
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

// Human escalation: ai@6 reads each wrapped tool's `needsApproval`; ai@7 reads it too, or
// `recovery.toolApproval` when passed. The operator's answer is the SDK's approval response
// in the next call's messages.
const approvalCases = [
  { label: 'ai@6', version: versions[1]!, toolApproval: false },
  { label: 'ai@7 (needsApproval)', version: versions[2]!, toolApproval: false },
  { label: 'ai@7 (toolApproval)', version: versions[2]!, toolApproval: true },
];

type ApprovalRequest = { approvalId: string; toolCall: { toolCallId: string } };

describe.each(approvalCases)(
  "escalation: 'approval' with $label",
  ({ label, version: v, toolApproval }) => {
    const model = () =>
      v.createOpenAI({ baseURL: provider.baseURL, apiKey: 'test' }).chat('gpt-4o');

    /** A 403 on acme/secret, then a later call to the same repository: paused for approval. */
    async function runUntilApproval(runId: string) {
      provider.reset([
        toolCall('github_api', { repo: 'acme/secret', path: 'README.md' }, { id: 'denied' }),
        toolCall('github_api', { repo: 'acme/secret', path: 'LICENSE' }, { id: 'later' }),
        text('done'),
      ]);
      const executed: string[] = [];
      const recovery = createRecovery({
        runId,
        policies: {
          github_api: {
            resource: (i: { repo: string }) => urlResource(`https://github.com/${i.repo}`),
          },
        },
        onDenial: 'continue',
        escalation: 'approval',
      });
      const tools = recovery.tools({
        github_api: v.tool({
          inputSchema: z.object({ repo: z.string(), path: z.string() }),
          execute: async ({ repo, path }: { repo: string; path: string }) => {
            executed.push(path);
            if (path === 'README.md') throw statusError(403);
            return `contents of ${repo}/${path}`;
          },
        }),
      });
      const options = {
        model: model(),
        tools,
        stopWhen: [v.stepCount(10), recovery.stopWhen],
        prepareStep: recovery.prepareStep,
        ...(toolApproval ? { toolApproval: recovery.toolApproval } : {}),
      };
      const messages = [{ role: 'user', content: 'Read acme/secret' }];
      const first = await v.generateText({ ...options, messages });
      const requests = (first.steps as { content: { type: string }[] }[])
        .flatMap((step) => step.content)
        .filter((part) => part.type === 'tool-approval-request') as unknown as ApprovalRequest[];
      const answer = (approved: boolean) =>
        v.generateText({
          ...options,
          messages: [
            ...messages,
            ...first.response.messages,
            {
              role: 'tool',
              content: requests.map((r) => ({
                type: 'tool-approval-response',
                approvalId: r.approvalId,
                approved,
              })),
            },
          ],
        });
      return { recovery, executed, requests, answer };
    }

    it('after a 403, a later call to the repository becomes an approval request and does not run', async () => {
      const { recovery, executed, requests } = await runUntilApproval(`compat-esc-a-${label}`);
      expect(executed).toEqual(['README.md']);
      expect(requests.map((r) => r.toolCall.toolCallId)).toEqual(['later']);
      expect(provider.remaining()).toBe(1); // the loop paused for the operator
      expect(recovery.outcome().blocked).toContainEqual({
        tool: 'github_api',
        resource: 'https://github.com/acme/secret',
        reason: 'APPROVAL_REQUESTED',
      });
    });

    it('approved: the call runs exactly once', async () => {
      const { executed, answer } = await runUntilApproval(`compat-esc-b-${label}`);
      const second = await answer(true);
      expect(second.text).toBe('done');
      expect(executed).toEqual(['README.md', 'LICENSE']);
      expect(provider.toolResults().at(-1)).toMatchObject({
        callId: 'later',
        output: expect.stringContaining('contents of acme/secret/LICENSE'),
      });
    });

    it('declined: the call never runs', async () => {
      const { recovery, executed, answer } = await runUntilApproval(`compat-esc-c-${label}`);
      const second = await answer(false);
      expect(second.text).toBe('done');
      expect(executed).toEqual(['README.md']);
      expect(recovery.outcome().blocked).toContainEqual({
        tool: 'github_api',
        resource: 'https://github.com/acme/secret',
        reason: 'APPROVAL_DECLINED',
      });
    });
  },
);

describe("escalation: 'approval' with ai@5 (no approval mechanism)", () => {
  const v = versions[0]!;

  it('falls back to a refusal: the later call is blocked and never runs', async () => {
    provider.reset([
      toolCall('github_api', { repo: 'acme/secret', path: 'README.md' }, { id: 'denied' }),
      toolCall('github_api', { repo: 'acme/secret', path: 'LICENSE' }, { id: 'later' }),
      text('done'),
    ]);
    const executed: string[] = [];
    const recovery = createRecovery({
      runId: 'compat-esc-ai5',
      policies: {
        github_api: {
          resource: (i: { repo: string }) => urlResource(`https://github.com/${i.repo}`),
        },
      },
      onDenial: 'continue',
      escalation: 'approval',
    });
    const result = await v.generateText({
      model: v.createOpenAI({ baseURL: provider.baseURL, apiKey: 'test' }).chat('gpt-4o'),
      prompt: 'Read acme/secret',
      tools: recovery.tools({
        github_api: v.tool({
          inputSchema: z.object({ repo: z.string(), path: z.string() }),
          execute: async ({ path }: { path: string }) => {
            executed.push(path);
            if (path === 'README.md') throw statusError(403);
            return 'contents';
          },
        }),
      }),
      stopWhen: [v.stepCount(10), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });
    expect(result.text).toBe('done');
    expect(executed).toEqual(['README.md']);
    const later = provider.toolResults().find((r) => r.callId === 'later');
    expect(contractIn(later!.output)).toMatchObject({
      status: 'BLOCKED',
      resource: 'https://github.com/acme/secret',
    });
    expect(
      (result.steps as { content: { type: string }[] }[])
        .flatMap((step) => step.content)
        .some((part) => part.type === 'tool-approval-request'),
    ).toBe(false);
  });
});
