import { createOpenAI } from '@ai-sdk/openai';
import { createRecovery } from '@recourse/ai-sdk';
import { describeHostileErrorText } from '@recourse/core/testing';
import { hostileErrorTexts, scriptedProviderServer, text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, tool } from 'ai';
import { HttpResponse, http } from 'msw';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { z } from 'zod';
import { failureIn, readContract } from '../test-support/harness.js';

// The shared hostile-error-text suite (`@recourse/core/testing`): a downstream error body
// that tries to steer the model changes nothing the policy decides.

const running = scriptedProviderServer();
const { provider } = running;
const openai = createOpenAI({ baseURL: provider.baseURL, apiKey: 'test' });
const models = [
  { api: 'chat', model: () => openai.chat('gpt-4o') },
  { api: 'responses', model: () => openai.responses('gpt-4o') },
] as const;

// What the downstream answers to the current call.
const downstream = { status: 404, body: '', requests: 0 };
beforeAll(() => {
  running.start();
  running.server.use(
    http.get('https://issues.test/issues/:id', () => {
      downstream.requests += 1;
      return new HttpResponse(downstream.body, {
        status: downstream.status,
        headers: { 'content-type': 'application/json' },
      });
    }),
  );
});
afterAll(running.stop);
beforeEach(() => provider.reset([]));

async function runCall(model: () => ReturnType<typeof openai.chat>, status: number, body: string) {
  downstream.status = status;
  downstream.body = body;
  downstream.requests = 0;
  provider.reset([toolCall('get_issue', { id: '7' }), text('I could not read the issue.')]);
  const ran = { delete_repository: 0, shell: 0 };
  const recovery = createRecovery({
    runId: 'run-hostile',
    retry: { baseDelayMs: 0 }, // no backoff waits
    policies: { get_issue: { sideEffects: false } },
  });
  const result = await generateText({
    model: model(),
    prompt: 'Read issue 7',
    tools: recovery.tools({
      get_issue: tool({
        description: 'Read an issue',
        inputSchema: z.object({ id: z.string() }),
        execute: async ({ id }) => {
          const response = await fetch(`https://issues.test/issues/${id}`);
          if (response.ok) return response.json();
          // As fetch wrappers (ofetch, ky) throw it: the status on the error, the body in its text.
          throw Object.assign(
            new Error(
              `GET /issues/${id} failed with ${response.status}: ${await response.clone().text()}`,
            ),
            { response },
          );
        },
      }),
      delete_repository: tool({
        description: 'Delete a repository',
        inputSchema: z.object({ repo: z.string() }),
        execute: async () => {
          ran.delete_repository += 1;
          return 'deleted';
        },
      }),
      shell: tool({
        description: 'Run a shell command',
        inputSchema: z.object({ command: z.string() }),
        execute: async () => {
          ran.shell += 1;
          return 'ok';
        },
      }),
    }),
    stopWhen: [isStepCount(5), recovery.stopWhen],
    prepareStep: recovery.prepareStep,
  });
  // The contract the call ended with; when the run went on, the model received exactly it.
  const { contract } = failureIn(result.steps[0]);
  const output = provider.toolResults()[0]?.output;
  if (output !== undefined) expect(readContract(output)).toEqual(contract);
  return {
    contract: contract as unknown as Record<string, unknown>,
    bodies: provider.requests.map((request) => request.rawBody),
    outcome: recovery.outcome(),
    steps: result.steps.length,
    downstreamRequests: downstream.requests,
    ran,
  };
}

describeHostileErrorText(
  'hostile error text through the AI SDK ($api)',
  models,
  ({ model }) => ({ runCall: (status, body) => runCall(model, status, body) }),
  hostileErrorTexts,
);
