import { createRecovery, isToolCallFailure, ToolCallFailedError } from '@recourse/ai-sdk';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  allBodies,
  failureIn,
  readContract,
  useScriptedProvider,
} from '../test-support/harness.js';

const { provider, chat, responses } = useScriptedProvider();
const secret = 'sk-proj-Zq8v1WbX4kL9mN2pR7sT0uY3aC6dF5gH';

function leakyTool() {
  return tool({
    description: 'Look up a customer',
    inputSchema: z.object({ id: z.string() }),
    execute: async (): Promise<string> => {
      const error = new Error(`upstream refused the request made with key ${secret}`);
      expect(error.stack).toContain('failure-contract.test.ts');
      throw error;
    },
  });
}

describe.each([
  { label: 'chat completions', model: chat },
  { label: 'responses', model: responses },
])('a failed call over $label', ({ model }) => {
  it('reaches the model as the JSON recovery contract, without stack or secret', async () => {
    provider.reset([toolCall('lookup_customer', { id: 'c-1' }), text('sorry')]);
    const recovery = createRecovery({ runId: 'run-c1', defaultPolicy: { sideEffects: false } });

    const result = await generateText({
      model: model(),
      prompt: 'Look up c-1',
      tools: recovery.tools({ lookup_customer: leakyTool() }),
      stopWhen: [isStepCount(5), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });

    const contract = readContract(provider.toolResults()[0]!.output);
    expect(contract).toMatchObject({
      failure_class: 'PERMANENT',
      recommended_recovery: 'REPLAN',
      retry_same_action: false,
      tool: 'lookup_customer',
    });
    const bodies = allBodies(provider);
    expect(bodies).not.toContain('sk-proj-');
    expect(bodies).not.toContain('Zq8v1WbX4kL9mN2pR7sT0uY3aC6dF5gH');
    expect(bodies).not.toContain('failure-contract.test.ts');
    expect(bodies).not.toMatch(/\bat .*\.ts:\d+/);

    // The model read plain JSON, not an escaped string inside {"error": ...}.
    expect(JSON.parse(provider.toolResults()[0]!.output)).toMatchObject({
      failure_class: 'PERMANENT',
    });
    // The application keeps the contract and the original cause in step.content.
    const part = result.steps[0]!.content.find((p) => p.type === 'tool-result') as {
      output: unknown;
    };
    expect(isToolCallFailure(part.output)).toBe(true);
    const failure = failureIn(result.steps[0]);
    expect(failure.contract).toEqual(contract);
    expect((failure.cause as Error).message).toContain(secret);
  });

  it("with failureMode 'throw': a ToolCallFailedError part, the contract as the error text", async () => {
    provider.reset([toolCall('lookup_customer', { id: 'c-1' }), text('sorry')]);
    const recovery = createRecovery({
      runId: 'run-c2',
      defaultPolicy: { sideEffects: false },
      failureMode: 'throw',
    });
    const result = await generateText({
      model: model(),
      prompt: 'Look up c-1',
      tools: recovery.tools({ lookup_customer: leakyTool() }),
      stopWhen: [isStepCount(5), recovery.stopWhen],
    });
    const sent = JSON.parse(provider.toolResults()[0]!.output) as { error: string };
    expect(JSON.parse(sent.error)).toMatchObject({
      failure_class: 'PERMANENT',
      retry_same_action: false,
    });
    expect(allBodies(provider)).not.toContain('Zq8v1WbX4kL9mN2pR7sT0uY3aC6dF5gH');
    const error = (
      result.steps[0]!.content.find((p) => p.type === 'tool-error') as { error: unknown }
    ).error;
    if (!ToolCallFailedError.isInstance(error)) throw new Error('expected a ToolCallFailedError');
    expect(error.code).toBe('TOOL_CALL_FAILED');
    expect(String(error)).toBe(error.message);
    expect(JSON.parse(error.message)).toEqual(error.contract);
    expect((error.cause as Error).message).toContain(secret);
  });
});
