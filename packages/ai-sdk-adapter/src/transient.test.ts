import { createRecovery } from '@recourse/ai-sdk';
import { createFakeClock } from '@recourse/core/testing';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  allBodies,
  driveClock,
  httpFailure,
  readContract,
  useScriptedProvider,
} from '../test-support/harness.js';

const { provider, chat } = useScriptedProvider();

function balanceTool(failures: Error[]) {
  const attempts: number[] = [];
  return {
    attempts,
    tool: tool({
      description: 'Read the balance',
      inputSchema: z.object({ account: z.string() }),
      execute: async ({ account }) => {
        attempts.push(attempts.length + 1);
        const failure = failures.shift();
        if (failure) throw failure;
        return { account, balance: 100 };
      },
    }),
  };
}

describe('TRANSIENT reads are retried inside the call', () => {
  it('503 then success: the model sees only the final result', async () => {
    provider.reset([toolCall('get_balance', { account: 'a-1' }), text('ok')]);
    const clock = createFakeClock();
    const balance = balanceTool([httpFailure(503, {}, 'upstream busy')]);
    const recovery = createRecovery({
      runId: 'run-t1',
      defaultPolicy: { sideEffects: false },
      clock,
      random: () => 0.5,
    });

    await driveClock(
      clock,
      generateText({
        model: chat(),
        prompt: 'Balance?',
        tools: recovery.tools({ get_balance: balance.tool }),
        stopWhen: [isStepCount(5), recovery.stopWhen],
      }),
    );

    expect(balance.attempts).toEqual([1, 2]);
    expect(clock.sleeps).toHaveLength(1);
    expect(provider.toolResults().map((r) => JSON.parse(r.output))).toEqual([
      { account: 'a-1', balance: 100 },
    ]);
    const bodies = allBodies(provider);
    expect(bodies).not.toContain('failure_class');
    expect(bodies).not.toContain('upstream busy');
    expect(bodies).not.toContain('503');
    expect(recovery.outcome().status).toBe('COMPLETED');
  });

  it('429 with retry-after: 2 sleeps at least 2000 ms before the retry', async () => {
    provider.reset([toolCall('get_balance', { account: 'a-1' }), text('ok')]);
    const clock = createFakeClock();
    const balance = balanceTool([httpFailure(429, { 'retry-after': '2' })]);
    // random 0: full jitter would pick 0 ms; the server's hint is the floor.
    const recovery = createRecovery({
      runId: 'run-t2',
      defaultPolicy: { sideEffects: false },
      clock,
      random: () => 0,
    });

    await driveClock(
      clock,
      generateText({
        model: chat(),
        prompt: 'Balance?',
        tools: recovery.tools({ get_balance: balance.tool }),
        stopWhen: [isStepCount(5), recovery.stopWhen],
      }),
    );

    expect(balance.attempts).toEqual([1, 2]);
    expect(clock.sleeps).toHaveLength(1);
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(2000);
    expect(JSON.parse(provider.toolResults()[0]!.output)).toMatchObject({ balance: 100 });
  });

  it('backoff is jittered: different random draws give different delays', async () => {
    const delays: number[] = [];
    for (const draw of [0.1, 0.9]) {
      provider.reset([toolCall('get_balance', { account: 'a-1' }), text('ok')]);
      const clock = createFakeClock();
      const balance = balanceTool([httpFailure(503)]);
      const recovery = createRecovery({
        runId: `run-j${draw}`,
        defaultPolicy: { sideEffects: false },
        clock,
        random: () => draw,
      });
      await driveClock(
        clock,
        generateText({
          model: chat(),
          prompt: 'Balance?',
          tools: recovery.tools({ get_balance: balance.tool }),
          stopWhen: isStepCount(5),
        }),
      );
      delays.push(clock.sleeps[0]!);
    }
    expect(delays[0]).toBeLessThan(delays[1]!);
  });

  it('a dead endpoint: after maxAttempts the model gets a contract, not a retry loop', async () => {
    provider.reset([toolCall('get_balance', { account: 'a-1' }), text('ok')]);
    const balance = balanceTool([httpFailure(503), httpFailure(503), httpFailure(503)]);
    const recovery = createRecovery({
      runId: 'run-t3',
      retry: { maxAttempts: 3, baseDelayMs: 0 },
    });

    await generateText({
      model: chat(),
      prompt: 'Balance?',
      tools: recovery.tools({ get_balance: balance.tool }),
      stopWhen: isStepCount(5),
    });

    expect(balance.attempts).toEqual([1, 2, 3]);
    expect(readContract(provider.toolResults()[0]!.output)).toMatchObject({
      failure_class: 'TRANSIENT',
      recommended_recovery: 'ABORT',
      retry_same_action: false,
    });
  });
});
