import { createRecovery } from '@recourse/ai-sdk';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { httpFailure, readContract, useScriptedProvider } from '../test-support/harness.js';

const { provider, chat } = useScriptedProvider();

describe('STALE_STATE', () => {
  it('answers REOBSERVE, does not re-send the write, and the re-observed merge completes', async () => {
    provider.reset([
      toolCall('merge_pr', { pr: 7, headSha: 'aaa111' }),
      toolCall('get_branch', { pr: 7 }),
      toolCall('merge_pr', { pr: 7, headSha: 'bbb222' }),
      text('merged'),
    ]);
    const merges: unknown[] = [];
    let head = 'bbb222'; // the branch moved since the model looked
    const recovery = createRecovery({
      runId: 'run-s1',
      policies: { merge_pr: { sideEffects: true } },
    });

    const result = await generateText({
      model: chat(),
      instructions: 'You are the release bot.',
      prompt: 'Merge PR 7',
      tools: recovery.tools({
        merge_pr: tool({
          inputSchema: z.object({ pr: z.number(), headSha: z.string() }),
          execute: async (input) => {
            merges.push(input);
            if (input.headSha !== head)
              throw httpFailure(412, {}, '{"message":"Head branch is behind the base branch"}');
            head = 'merged';
            return { merged: true };
          },
        }),
        get_branch: tool({
          inputSchema: z.object({ pr: z.number() }),
          execute: async () => ({ headSha: head }),
        }),
      }),
      stopWhen: [isStepCount(10), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });

    expect(result.text).toBe('merged');
    expect(merges).toEqual([
      { pr: 7, headSha: 'aaa111' }, // sent once, not retried by the library
      { pr: 7, headSha: 'bbb222' },
    ]);
    expect(readContract(provider.toolResults()[0]!.output)).toMatchObject({
      failure_class: 'STALE_STATE',
      recommended_recovery: 'REOBSERVE',
      retry_same_action: false,
    });
    // The guidance reached the next request, and the user's own instructions are still there.
    const next = provider.requests[1]!.rawBody;
    expect(next).toContain('You are the release bot.');
    const system = (index: number) =>
      (provider.requests[index]!.body.messages as { role: string; content: unknown }[])
        .filter((m) => m.role === 'system')
        .map((m) => String(m.content))
        .join('\n');
    expect(system(1)).toContain('You are the release bot.');
    expect(system(1)).toContain('[recourse] The state merge_pr acted on has changed');
    expect(next).toContain('You are the release bot.');
    // Guidance is for one step only.
    expect(system(2)).toBe('You are the release bot.');
    expect(provider.requests[2]!.rawBody).toContain('You are the release bot.');
    expect(recovery.outcome()).toMatchObject({ status: 'COMPLETED' });
  });
});
