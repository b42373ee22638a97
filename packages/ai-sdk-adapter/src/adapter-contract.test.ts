import { createOpenAI } from '@ai-sdk/openai';
import { createRecovery } from '@recourse/ai-sdk';
import { describeAdapterContract } from '@recourse/core/testing';
import { type ScriptEntry, scriptedProviderServer, text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, jsonSchema, tool } from 'ai';
import { afterAll, beforeAll } from 'vitest';

const running = scriptedProviderServer();
const { provider } = running;
const openai = createOpenAI({ baseURL: provider.baseURL, apiKey: 'test' });
beforeAll(running.start);
afterAll(running.stop);

describeAdapterContract('@recourse/ai-sdk', {
  start(options, contractTools) {
    const recovery = createRecovery({ ...options, warn: false });
    const tools = recovery.tools(
      Object.fromEntries(
        Object.entries(contractTools).map(([name, t]) => [
          name,
          tool({
            description: t.description,
            inputSchema: jsonSchema<Record<string, string>>(t.inputSchema),
            execute: (input, { abortSignal }) => t.execute(input, abortSignal),
          }),
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
        const result = await generateText({
          model: openai.chat('gpt-4o'),
          prompt: 'go',
          tools,
          stopWhen: [isStepCount(turns.length + 1), recovery.stopWhen],
          prepareStep: recovery.prepareStep,
        });
        return {
          answers: answersIn(result.steps.flatMap((step) => step.content)),
          modelRequests: provider.requests.length,
        };
      },
    };
  },
});

/**
 * The text each call's result carries to the model, by call id: a value as JSON (a string
 * as it is), a thrown error as its text. The SDK keeps them as parts of each step.
 */
function answersIn(parts: readonly unknown[]): Map<string, string> {
  const answers = new Map<string, string>();
  for (const part of parts as {
    type: string;
    toolCallId: string;
    output?: unknown;
    error?: unknown;
  }[]) {
    if (part.type === 'tool-result')
      answers.set(
        part.toolCallId,
        typeof part.output === 'string' ? part.output : JSON.stringify(part.output),
      );
    if (part.type === 'tool-error') answers.set(part.toolCallId, String(part.error));
  }
  return answers;
}
