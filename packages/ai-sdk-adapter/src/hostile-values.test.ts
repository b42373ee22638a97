import { createRecovery } from '@recourse/ai-sdk';
import { MemoryLedger } from '@recourse/core';
import { describeHostileValues } from '@recourse/core/testing';
import { hostileThrownValues, revokedProxy, text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, type LanguageModel, tool } from 'ai';
import { expect } from 'vitest';
import { z } from 'zod';
import { readContract, useScriptedProvider } from '../test-support/harness.js';

// The shared hostile-values suite (`@recourse/core/testing`) through generateText.

const { provider, chat, responses } = useScriptedProvider();

const models = [
  { api: 'chat', model: chat },
  { api: 'responses', model: responses },
] as const;

/** `calls` calls of `act` through generateText; what the model read back, and the run. */
async function runOnce(
  model: () => LanguageModel,
  sideEffects: boolean,
  result: () => unknown,
  calls: number,
) {
  provider.reset([
    ...Array.from({ length: calls }, () => toolCall('act', { id: 'x-1' })),
    text('done'),
  ]);
  let executed = 0;
  const recovery = createRecovery({
    runId: 'run-hostile-values',
    ledger: new MemoryLedger(),
    retry: { baseDelayMs: 0 },
    policies: { act: { sideEffects } },
  });
  const run = await generateText({
    model: model(),
    prompt: 'Act on x-1',
    tools: recovery.tools({
      act: tool({
        description: 'Act on an item',
        inputSchema: z.object({ id: z.string() }),
        execute: async () => {
          executed++;
          return result();
        },
      }),
    }),
    // No recovery.stopWhen: the model reads every contract, also the one that stops the run.
    stopWhen: isStepCount(calls + 2),
  });
  expect(run.steps.length).toBeGreaterThanOrEqual(1);
  return {
    outputs: provider.toolResults().map((r) => r.output),
    executed,
    outcome: recovery.outcome(),
    requestBodies: provider.requests.map((request) => request.rawBody),
  };
}

describeHostileValues(
  'hostile values through the AI SDK ($api)',
  models,
  ({ model }) => ({
    runOnce: (sideEffects, result, calls) => runOnce(model, sideEffects, result, calls),
    readContract,
  }),
  { thrown: hostileThrownValues, revokedProxy },
);
