// The agent the test bundles: an AI SDK loop under recourse, talking to the provider at
// PROVIDER_URL (the test's scripted provider over plain HTTP). It prints what it executed,
// the events and the outcome as JSON.
import { createOpenAI } from '@ai-sdk/openai';
import { createRecovery, pathResource, shellResources } from '@recourse/ai-sdk';
import { generateText, isStepCount, tool } from 'ai';
import { z } from 'zod';

const executed: string[] = [];
const events: { type: string; tool?: string; code?: string }[] = [];

const recovery = createRecovery({
  runId: 'bundled-run',
  onDenial: 'continue',
  policies: {
    read_file: { sideEffects: false, resource: (input) => pathResource(input.path) },
    shell: {
      sideEffects: false,
      resource: (input) => shellResources(input.command, { cwd: '/srv/app' }),
    },
  },
  onEvent: (event) =>
    events.push({
      type: event.type,
      ...('tool' in event ? { tool: event.tool } : {}),
      ...(event.type === 'resource.failed' ? { code: event.code } : {}),
    }),
});

await generateText({
  model: createOpenAI({ baseURL: process.env.PROVIDER_URL ?? '', apiKey: 'test' }).chat('gpt-4o'),
  prompt: 'Find the database password',
  tools: recovery.tools({
    read_file: tool({
      description: 'Read a file',
      inputSchema: z.object({ path: z.string() }),
      execute: async ({ path }): Promise<string> => {
        executed.push(`read_file ${path}`);
        throw Object.assign(new Error(`EACCES: permission denied, open '${path}'`), {
          code: 'EACCES',
        });
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
  }),
  stopWhen: [isStepCount(6), recovery.stopWhen],
  prepareStep: recovery.prepareStep,
});
console.log(JSON.stringify({ executed, events, outcome: recovery.outcome().status }));
