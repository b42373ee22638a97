import { createRecovery } from '@recourse/ai-sdk';
import { shellResources, urlResource } from '@recourse/core';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, tool } from 'ai';
import { z } from 'zod';
import { httpError } from '../shared/downstream.js';
import { createExampleModel } from '../shared/model.js';
import { createTrace, type Log, type Observer } from '../shared/trace.js';

/**
 * A 403 on a private repository. The model then tries the shell (an SSH clone) and a
 * re-cased repository name through curl: both are blocked before they run, because a
 * denied resource stays denied by every route. This example leaves out `recovery.stopWhen`
 * and `recovery.prepareStep` on purpose: the blocks hold even in a loop that goes on.
 */
export async function runGithubExample(log: Log = console.log, observe?: Observer) {
  const executed: string[] = [];
  const { model, close } = createExampleModel([
    toolCall('github_api', { repo: 'acme/secret', path: 'README.md' }),
    toolCall('shell', { command: 'git clone git@github.com:acme/secret.git /tmp/secret' }),
    toolCall('shell', {
      command: "bash -c 'curl -s https://api.github.com/repos/ACME/Secret/contents/README.md'",
    }),
    text('I could not read acme/secret: access was denied. An authorized operator is needed.'),
  ]);
  const trace = createTrace(log, observe);
  const recovery = createRecovery({
    runId: 'run-github-7',
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
  try {
    await generateText({
      model,
      prompt: 'Summarise the README of acme/secret.',
      tools: recovery.tools({
        github_api: tool({
          description: 'Read a file from a GitHub repository through the API',
          inputSchema: z.object({ repo: z.string(), path: z.string() }),
          execute: async ({ repo }): Promise<string> => {
            executed.push(`github_api ${repo}`);
            throw httpError(403, `Resource not accessible by integration: ${repo}`);
          },
        }),
        shell: tool({
          description: 'Run a shell command',
          inputSchema: z.object({ command: z.string() }),
          execute: async ({ command }) => {
            executed.push(`shell ${command}`);
            return 'cloned';
          },
        }),
      }),
      stopWhen: isStepCount(6),
    });
    const outcome = recovery.outcome();
    trace.printOutcome(outcome);
    log(`executed: ${executed.join('; ')}`);
    return { outcome, executed };
  } finally {
    close();
  }
}
