import { createRecovery } from '@recourse/ai-sdk';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { httpFailure, useScriptedProvider } from '../test-support/harness.js';
import { githubRepo } from '../test-support/resources.js';

const { provider, chat } = useScriptedProvider();

function toolNamesSent(index: number): string[] {
  const tools = (provider.requests[index]!.body.tools ?? []) as { function: { name: string } }[];
  return tools.map((t) => t.function.name);
}

describe('prepareStep', () => {
  it('removes tools that can no longer run and keeps the rest', async () => {
    provider.reset([toolCall('github_api', { repo: 'acme/secret' }), text('ok')]);
    const recovery = createRecovery({
      runId: 'run-p1',
      onDenial: 'continue',
      policies: { github_api: { resource: (i: { repo: string }) => githubRepo(i.repo) } },
    });
    await generateText({
      model: chat(),
      prompt: 'Read',
      tools: recovery.tools({
        github_api: tool({
          inputSchema: z.object({ repo: z.string() }),
          execute: async (): Promise<string> => {
            throw httpFailure(403);
          },
        }),
        read_notes: tool({ inputSchema: z.object({}), execute: async () => 'notes' }),
      }),
      stopWhen: [isStepCount(5), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });
    expect(toolNamesSent(0)).toEqual(['github_api', 'read_notes']);
    // read_notes has no resource function: after a denial it counts as touching everything.
    expect(toolNamesSent(1)).toEqual(['github_api']);
  });

  it('keeps system-message instructions and appends the guidance as another system message', async () => {
    provider.reset([toolCall('merge_pr', { pr: 1 }), text('ok')]);
    const recovery = createRecovery({ runId: 'run-p2' });
    await generateText({
      model: chat(),
      instructions: [{ role: 'system', content: 'Rule one.' }],
      prompt: 'Merge',
      tools: recovery.tools({
        merge_pr: tool({
          inputSchema: z.object({ pr: z.number() }),
          execute: async (): Promise<string> => {
            throw httpFailure(409);
          },
        }),
      }),
      stopWhen: [isStepCount(5), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });
    const messages = provider.requests[1]!.body.messages as { role: string; content: string }[];
    const system = messages.filter((m) => m.role === 'system').map((m) => m.content);
    expect(system[0]).toBe('Rule one.');
    expect(system.join('\n')).toContain('[recourse] The state merge_pr acted on has changed');
  });

  it('without instructions, the guidance alone becomes the system prompt for one step', async () => {
    provider.reset([toolCall('merge_pr', { pr: 1 }), toolCall('merge_pr', { pr: 2 }), text('ok')]);
    const recovery = createRecovery({ runId: 'run-p3' });
    let first = true;
    await generateText({
      model: chat(),
      prompt: 'Merge',
      tools: recovery.tools({
        merge_pr: tool({
          inputSchema: z.object({ pr: z.number() }),
          execute: async () => {
            if (first) {
              first = false;
              throw httpFailure(409);
            }
            return 'merged';
          },
        }),
      }),
      stopWhen: [isStepCount(5), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });
    const systemOf = (index: number) =>
      (provider.requests[index]!.body.messages as { role: string; content: string }[])
        .filter((m) => m.role === 'system')
        .map((m) => m.content);
    expect(systemOf(0)).toEqual([]);
    expect(systemOf(1)).toHaveLength(1);
    expect(systemOf(1)[0]).toMatch(/^\[recourse\] /);
    expect(systemOf(2)).toEqual([]);
  });
});
