import { MemoryLedger } from '@recourse/core';
import { describeHostileValues } from '@recourse/core/testing';
import {
  hostileThrownValues,
  revokedProxy,
  scriptedProviderServer,
  text,
  toolCall,
} from '@recourse/testing';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { z } from 'zod';
import { createRecovery } from './index.js';
import { createClient, type Mode, modes, outputFor, runLoop } from './test-support/harness.js';

// The shared hostile-values suite (`@recourse/core/testing`) through the real `openai`
// client against a scripted provider, in every loop mode.

const running = scriptedProviderServer();
const { provider } = running;
beforeAll(running.start);
afterAll(running.stop);
beforeEach(() => provider.reset());

/** `calls` calls of `act` through the loop; what the model read back for each, and the run. */
async function runOnce(mode: Mode, sideEffects: boolean, result: () => unknown, calls: number) {
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
  const tools = recovery.tools({
    act: {
      description: 'Act on an item',
      inputSchema: z.object({ id: z.string() }),
      execute: async () => {
        executed++;
        return result();
      },
    },
  });
  const loop = await runLoop(recovery, createClient(provider), mode, tools, 'Act on x-1');
  const outputs = Array.from({ length: calls }, (_, i) =>
    outputFor(loop.conversation, `call_${i + 1}`),
  );
  return {
    outputs,
    executed,
    outcome: loop.outcome,
    requestBodies: provider.requests.map((request) => request.rawBody),
  };
}

describeHostileValues(
  'hostile values through the OpenAI SDK ($api, stream: $stream)',
  modes,
  (mode) => ({
    runOnce: (sideEffects, result, calls) => runOnce(mode, sideEffects, result, calls),
  }),
  { thrown: hostileThrownValues, revokedProxy },
);
