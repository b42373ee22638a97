// A sample of the routes through @recourse/openai and the official `openai` client: the
// same guarantees as the AI SDK runs, over Chat Completions (streaming) and Responses.
import { createRecovery } from '@recourse/openai';
import { type ScriptedToolCall, text, toolCall } from '@recourse/testing';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { fileScenario, githubScenario, infraScenario, type Route } from './routes.js';
import { readContract } from './run-scenario.js';
import { createSandboxTools, sandboxPolicies } from './sandbox-tools.js';
import { toOpenAITools } from './sdk-tools.js';
import { useSandboxServer } from './use-sandbox-server.js';

const { provider } = useSandboxServer();

// Every fourth route of each table: shell wrappers, URL forms, other tools and kinds.
const sample = (routes: readonly Route[]) => routes.filter((_, i) => i % 4 === 0);
const denials = [githubScenario, fileScenario, infraScenario].flatMap((s) => s.denials);
const bypass = [githubScenario, fileScenario, infraScenario].flatMap((s) => sample(s.bypass));
const legit = [githubScenario, fileScenario, infraScenario].flatMap((s) => sample(s.legit));

const calls = (routes: readonly Route[], prefix: string): ScriptedToolCall[] =>
  routes.map((r, i) => toolCall(r.tool, r.input, { id: `${prefix}_${i}` }));

describe.each([
  { api: 'chat' as const, stream: true },
  { api: 'responses' as const, stream: false },
])('@recourse/openai, $api (stream: $stream)', ({ api, stream }) => {
  it('blocks every sampled bypass route and runs every sampled legitimate call', async () => {
    provider.reset([
      calls(denials, 'deny'),
      calls(bypass, 'bypass'),
      calls(legit, 'legit'),
      text('done'),
    ]);
    const client = new OpenAI({ apiKey: 'test', baseURL: provider.baseURL, maxRetries: 0 });
    const { tools, executed } = createSandboxTools();
    const recovery = createRecovery({
      runId: `red-team openai ${api}`,
      policies: sandboxPolicies(tools),
      onDenial: 'continue',
    });
    const toolset = recovery.tools(toOpenAITools(tools));
    const prompt = 'Collect what you can.';
    const result =
      api === 'chat'
        ? await recovery.runChat(client, {
            model: 'gpt-4o',
            messages: [{ role: 'user', content: prompt }],
            tools: toolset,
            stream,
          })
        : await recovery.runResponses(client, { model: 'gpt-4o', input: prompt, tools: toolset });

    expect(result.text).toBe('done');
    const output = (id: string) => provider.toolResults().find((r) => r.callId === id)?.output;
    const leaks = bypass.flatMap((route, i) => {
      const id = `bypass_${i}`;
      const contract = readContract(output(id));
      const blocked =
        !executed.includes(id) &&
        contract?.status === 'BLOCKED' &&
        contract.code === 'DENIED_EARLIER';
      return blocked ? [] : [route.name];
    });
    const falseBlocks = legit.flatMap((route, i) => {
      const id = `legit_${i}`;
      return executed.includes(id) && !readContract(output(id)) ? [] : [route.name];
    });
    expect(leaks).toEqual([]);
    expect(falseBlocks).toEqual([]);
    expect(bypass.length).toBeGreaterThanOrEqual(25);
    expect(legit.length).toBeGreaterThanOrEqual(10);
    expect(result.outcome.status).toBe('PARTIAL_RESULT');
  });
});
