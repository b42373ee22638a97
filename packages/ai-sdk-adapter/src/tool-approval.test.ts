import { createRecovery } from '@recourse/ai-sdk';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, type ModelMessage, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  allBodies,
  httpFailure,
  readContract,
  useScriptedProvider,
} from '../test-support/harness.js';
import { githubRepo } from '../test-support/resources.js';

const { provider, chat } = useScriptedProvider();

function createTools() {
  const executed: string[] = [];
  return {
    executed,
    toolset: {
      github_api: tool({
        description: 'Read a file from a GitHub repository',
        inputSchema: z.object({ repo: z.string(), path: z.string() }),
        execute: async ({ repo, path }) => {
          executed.push(`${repo}/${path}`);
          if (repo === 'acme/secret' && path === 'README.md')
            throw httpFailure(403, {}, '{"message":"Resource not accessible"}');
          return `contents of ${repo}/${path}`;
        },
      }),
    },
  };
}

const policies = {
  github_api: {
    resource: (i: { repo: string; path: string }) => githubRepo(`${i.repo}/${i.path}`),
  },
};

// Denied once (a real 403), then the model asks for a file below the denied path.
const script = () => [
  toolCall('github_api', { repo: 'acme/secret', path: 'README.md' }),
  toolCall('github_api', { repo: 'acme/secret', path: 'README.md/summary' }),
  text('waiting'),
];

type Approval = { approvalId: string; reason?: string; toolCall: { toolCallId: string } };

/** The first run: denied, then the route to the denied resource becomes an approval request. */
async function runUntilApproval(useToolApproval: boolean) {
  provider.reset(script());
  const { executed, toolset } = createTools();
  const recovery = createRecovery({
    runId: `run-esc-${useToolApproval}`,
    policies,
    onDenial: 'continue',
    escalation: 'approval',
  });
  const tools = recovery.tools(toolset);
  const messages: ModelMessage[] = [{ role: 'user', content: 'Read acme/secret' }];
  const first = await generateText({
    model: chat(),
    messages,
    tools,
    stopWhen: [isStepCount(10), recovery.stopWhen],
    prepareStep: recovery.prepareStep,
    ...(useToolApproval ? { toolApproval: recovery.toolApproval } : {}),
  });
  const approvals = first.steps
    .flatMap((step) => step.content)
    .filter((part) => part.type === 'tool-approval-request') as unknown as Approval[];
  /** The application's answer: the SDK's approval response in the next call's messages. */
  const answer = (approved: boolean) =>
    generateText({
      model: chat(),
      messages: [
        ...messages,
        ...first.response.messages,
        {
          role: 'tool',
          content: approvals.map((a) => ({
            type: 'tool-approval-response' as const,
            approvalId: a.approvalId,
            approved,
            ...(approved ? {} : { reason: 'not for this run' }),
          })),
        },
      ],
      tools,
      stopWhen: [isStepCount(10), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
      ...(useToolApproval ? { toolApproval: recovery.toolApproval } : {}),
    });
  return { recovery, executed, first, approvals, answer };
}

describe("escalation: 'approval' (ai@7)", () => {
  it('turns the blocked call into an approval request that names the resource; the tool does not run', async () => {
    const { recovery, executed, approvals } = await runUntilApproval(true);
    expect(executed).toEqual(['acme/secret/README.md']);
    expect(approvals).toHaveLength(1);
    expect(approvals[0]!.reason).toContain(githubRepo('acme/secret/README.md/summary'));
    expect(approvals[0]!.reason).toMatch(/denied earlier/);
    expect(provider.remaining()).toBe(1); // the loop paused for the operator
    expect(recovery.outcome().blocked).toContainEqual({
      tool: 'github_api',
      resource: githubRepo('acme/secret/README.md/summary'),
      reason: 'APPROVAL_REQUESTED',
    });
  });

  it('approved: the grant is recorded and the call runs exactly once', async () => {
    const { recovery, executed, answer } = await runUntilApproval(true);
    const second = await answer(true);
    expect(second.text).toBe('waiting');
    expect(executed).toEqual(['acme/secret/README.md', 'acme/secret/README.md/summary']);
    const results = provider.toolResults();
    expect(results.at(-1)!.output).toContain('contents of acme/secret/README.md/summary');
    expect(recovery.outcome().blocked ?? []).not.toContainEqual(
      expect.objectContaining({ reason: 'APPROVAL_REQUESTED' }),
    );
    // The denied file itself stays denied: the grant is for what was approved only.
    await expect(
      recovery.runtime.checkBlocked('github_api', { repo: 'acme/secret', path: 'README.md' }),
    ).resolves.toMatchObject({ blocked: true });
  });

  it('approved through tools’ needsApproval alone (no toolApproval option): runs once', async () => {
    const { executed, approvals, answer } = await runUntilApproval(false);
    expect(approvals).toHaveLength(1);
    expect(executed).toEqual(['acme/secret/README.md']);
    await answer(true);
    expect(executed).toEqual(['acme/secret/README.md', 'acme/secret/README.md/summary']);
  });

  it('declined: the call never runs and the model is told the route is closed', async () => {
    const { recovery, executed, answer } = await runUntilApproval(true);
    await answer(false);
    expect(executed).toEqual(['acme/secret/README.md']);
    expect(allBodies(provider)).toContain('The operator declined access to');
    expect(recovery.outcome().blocked).toContainEqual({
      tool: 'github_api',
      resource: githubRepo('acme/secret/README.md/summary'),
      reason: 'APPROVAL_DECLINED',
    });
  });

  it('without escalation the blocked call is refused as before', async () => {
    provider.reset(script());
    const { executed, toolset } = createTools();
    const recovery = createRecovery({ runId: 'run-esc-off', policies, onDenial: 'continue' });
    const result = await generateText({
      model: chat(),
      prompt: 'Read acme/secret',
      tools: recovery.tools(toolset),
      stopWhen: [isStepCount(10), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
      toolApproval: recovery.toolApproval,
    });
    expect(result.text).toBe('waiting');
    expect(executed).toEqual(['acme/secret/README.md']);
    expect(readContract(provider.toolResults()[1]!.output)).toMatchObject({ status: 'BLOCKED' });
    expect(
      result.steps.flatMap((s) => s.content).some((p) => p.type === 'tool-approval-request'),
    ).toBe(false);
  });
});
