import { shellResources, urlResource } from '@recourse/core';
import { createRecovery } from '@recourse/openai';
import { text, toolCall } from '@recourse/testing';
import { z } from 'zod';
import { httpError } from '../shared/downstream.js';
import { createExampleClient } from '../shared/openai-client.js';
import { createTrace, type Log, type Observer } from '../shared/trace.js';

/** The github example through the official OpenAI SDK and Chat Completions (streaming). */
export async function runOpenAIGithubExample(log: Log = console.log, observe?: Observer) {
  const executed: string[] = [];
  const { client, model, close } = createExampleClient([
    toolCall('github_api', { repo: 'acme/secret', path: 'README.md' }),
    toolCall('shell', { command: 'gh repo clone ACME/Secret' }),
    text('Access to acme/secret was denied; an authorized operator is needed.'),
  ]);
  const trace = createTrace(log, observe);
  const recovery = createRecovery({
    runId: 'run-github-8',
    onEvent: trace.onEvent,
    policies: {
      github_api: {
        sideEffects: false, // reads a file
        resource: (i: { repo: string }) => urlResource(`https://github.com/${i.repo}`),
      },
      // A shell command may change anything: a write, never retried blindly.
      shell: {
        sideEffects: true,
        resource: (i: { command: string }) => shellResources(i.command),
      },
    },
  });
  const tools = recovery.tools({
    github_api: {
      description: 'Read a file from a GitHub repository through the API',
      inputSchema: z.object({ repo: z.string(), path: z.string() }),
      execute: async ({ repo }): Promise<string> => {
        executed.push(`github_api ${repo}`);
        throw httpError(403, `Resource not accessible by integration: ${repo}`);
      },
    },
    shell: {
      description: 'Run a shell command',
      inputSchema: z.object({ command: z.string() }),
      execute: async ({ command }) => {
        executed.push(`shell ${command}`);
        return 'cloned';
      },
    },
  });
  try {
    const result = await recovery.runChat(client, {
      model,
      messages: [{ role: 'user', content: 'Summarise the README of acme/secret.' }],
      tools,
      stream: true,
      maxSteps: 6,
    });
    trace.printOutcome(result.outcome);
    log(`executed: ${executed.join('; ')}`);
    return { outcome: result.outcome, executed };
  } finally {
    close();
  }
}
