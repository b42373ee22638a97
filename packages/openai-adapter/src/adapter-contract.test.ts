import { describeAdapterContract } from '@recourse/core/testing';
import { createRecovery } from '@recourse/openai';
import { type ScriptEntry, scriptedProviderServer, text, toolCall } from '@recourse/testing';
import OpenAI from 'openai';
import { afterAll, beforeAll } from 'vitest';

const running = scriptedProviderServer();
const { provider } = running;
let client: OpenAI;
beforeAll(() => {
  running.start();
  // The client captures fetch at construction: after msw is installed.
  client = new OpenAI({ apiKey: 'test', baseURL: provider.baseURL, maxRetries: 0 });
});
afterAll(running.stop);

describeAdapterContract('@recourse/openai', {
  start(options, contractTools) {
    const recovery = createRecovery({ ...options, warn: false });
    const tools = recovery.tools(
      Object.fromEntries(
        Object.entries(contractTools).map(([name, t]) => [
          name,
          {
            description: t.description,
            inputSchema: t.inputSchema,
            execute: (input: unknown, context: { signal?: AbortSignal | undefined }) =>
              t.execute(input as Record<string, string>, context.signal),
          },
        ]),
      ),
    );
    return {
      runtime: recovery.runtime,
      async play(turns) {
        const script: ScriptEntry[] = turns.map((calls) =>
          calls.map((c) => toolCall(c.name, c.input, { id: c.id })),
        );
        provider.reset([...script, text('done')]);
        const result = await recovery.runResponses(client, {
          model: 'gpt-4o',
          input: 'go',
          tools,
          maxSteps: turns.length + 1,
        });
        const answers = new Map<string, string>();
        for (const item of result.input)
          if (
            item.type === 'function_call_output' &&
            typeof item.output === 'string' &&
            item.call_id
          )
            answers.set(item.call_id, item.output);
        return { answers, modelRequests: provider.requests.length };
      },
    };
  },
});
