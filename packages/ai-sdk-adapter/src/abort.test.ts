import { createRecovery } from '@recourse/ai-sdk';
import { createFakeClock } from '@recourse/core/testing';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { httpFailure, useScriptedProvider } from '../test-support/harness.js';

const { provider, chat } = useScriptedProvider();

describe('abort', () => {
  it('an abort during a backoff reaches the caller untouched', async () => {
    provider.reset([toolCall('get_balance', { account: 'a-1' }), text('ok')]);
    const clock = createFakeClock();
    const controller = new AbortController();
    const reason = new DOMException('The user cancelled.', 'AbortError');
    const recovery = createRecovery({ runId: 'run-ab', clock });
    let attempts = 0;
    const run = generateText({
      model: chat(),
      prompt: 'Balance?',
      abortSignal: controller.signal,
      tools: recovery.tools({
        get_balance: tool({
          inputSchema: z.object({ account: z.string() }),
          execute: async (): Promise<string> => {
            attempts++;
            throw httpFailure(503);
          },
        }),
      }),
      stopWhen: [isStepCount(5), recovery.stopWhen],
    });
    const settled = run.then(
      () => ({ ok: true as const }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    while (clock.pending() === 0) await new Promise((resolve) => setImmediate(resolve));
    controller.abort(reason);

    const outcome = await settled;
    expect(outcome.ok).toBe(false);
    expect(outcome.ok === false && outcome.error).toBe(reason);
    expect(attempts).toBe(1);
    expect(provider.requests).toHaveLength(1);
    // A cancelled run is not a failure of the tool.
    expect(recovery.outcome().failures).toEqual([]);
  });
});
