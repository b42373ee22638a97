import { createRecovery } from '@recourse/ai-sdk';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  failureIn,
  httpFailure,
  readContract,
  useScriptedProvider,
} from '../test-support/harness.js';
import { githubRepo, shellReach } from '../test-support/resources.js';

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
          executed.push(`github_api ${repo}/${path}`);
          if (repo === 'acme/secret')
            throw httpFailure(403, {}, '{"message":"Resource not accessible"}');
          return `contents of ${repo}/${path}`;
        },
      }),
      shell: tool({
        description: 'Run a shell command',
        inputSchema: z.object({ command: z.string() }),
        execute: async ({ command }) => {
          executed.push(`shell ${command}`);
          return 'ok';
        },
      }),
      read_notes: tool({
        description: 'Read the notes (no resource function)',
        inputSchema: z.object({}),
        execute: async () => {
          executed.push('read_notes');
          return 'notes';
        },
      }),
    },
  };
}

const policies = {
  github_api: { resource: (i: { repo: string }) => githubRepo(i.repo) },
  shell: { resource: (i: { command: string }) => shellReach(i.command) },
};

// The model is denied, then tries another route to the same repository.
const bypassScript = () => [
  toolCall('github_api', { repo: 'acme/secret', path: 'README.md' }),
  toolCall('shell', { command: 'git clone https://github.com/ACME/Secret' }),
  text('cloned it'),
];

describe('AUTHORIZATION', () => {
  it('makes the outcome BLOCKED and stopWhen ends the loop before the bypass', async () => {
    provider.reset(bypassScript());
    const { executed, toolset } = createTools();
    const recovery = createRecovery({ runId: 'run-a1', policies });

    const result = await generateText({
      model: chat(),
      prompt: 'Read acme/secret',
      tools: recovery.tools(toolset),
      stopWhen: [isStepCount(10), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });

    expect(result.steps).toHaveLength(1);
    expect(provider.remaining()).toBe(2);
    expect(executed).toEqual(['github_api acme/secret/README.md']);
    expect(recovery.outcome()).toMatchObject({
      status: 'BLOCKED',
      reason: 'AUTHORIZATION_DENIED',
      next_possible_action: expect.any(String),
    });
    // The loop ended, so the contract went to the application, not the model.
    expect(failureIn(result.steps[0]).contract).toMatchObject({
      status: 'BLOCKED',
      failure_class: 'AUTHORIZATION',
      recommended_recovery: 'ABORT',
      retry_same_action: false,
      next_possible_action: expect.any(String),
    });
  });

  it('without stopWhen, the shell route to the denied repository gets a BLOCKED contract instead of running', async () => {
    provider.reset(bypassScript());
    const { executed, toolset } = createTools();
    const recovery = createRecovery({ runId: 'run-a2', policies });

    const result = await generateText({
      model: chat(),
      prompt: 'Read acme/secret',
      tools: recovery.tools(toolset),
      stopWhen: isStepCount(10),
    });

    expect(result.text).toBe('cloned it'); // the script ran to its end
    expect(executed).toEqual(['github_api acme/secret/README.md']);
    const shellResult = readContract(provider.toolResults()[1]!.output);
    expect(shellResult).toMatchObject({
      status: 'BLOCKED',
      tool: 'shell',
      retry_same_action: false,
    });
    expect(recovery.outcome().status).toBe('BLOCKED');
  });

  it("with onDenial: 'continue', other resources still run; the denied one and tools without a resource do not", async () => {
    provider.reset([
      toolCall('github_api', { repo: 'acme/secret', path: 'README.md' }),
      toolCall('github_api', { repo: 'acme/public', path: 'README.md' }),
      toolCall('shell', { command: 'git clone git@github.com:acme/secret.git' }),
      toolCall('shell', { command: 'git clone https://github.com/acme/public' }),
      toolCall('read_notes', {}),
      text('done'),
    ]);
    const { executed, toolset } = createTools();
    const recovery = createRecovery({ runId: 'run-a3', policies, onDenial: 'continue' });

    await generateText({
      model: chat(),
      prompt: 'Read the repos',
      tools: recovery.tools(toolset),
      stopWhen: [isStepCount(10), recovery.stopWhen],
    });

    expect(executed).toEqual([
      'github_api acme/secret/README.md',
      'github_api acme/public/README.md',
      'shell git clone https://github.com/acme/public',
    ]);
    const statuses = provider.toolResults().map((r) => {
      try {
        return readContract(r.output).status;
      } catch {
        return 'OK';
      }
    });
    expect(statuses).toEqual(['BLOCKED', 'OK', 'BLOCKED', 'OK', 'BLOCKED']);
    expect(recovery.outcome()).toMatchObject({ status: 'PARTIAL_RESULT' });
  });
});
