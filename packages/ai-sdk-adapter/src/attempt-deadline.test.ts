import { createRecovery } from '@recourse/ai-sdk';
import { callContext, type RecoveryEvent } from '@recourse/core';
import { createFakeClock } from '@recourse/core/testing';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { driveClock, readContract, useScriptedProvider } from '../test-support/harness.js';

const { provider, chat } = useScriptedProvider();

/** A tool whose first attempt never settles and ignores its signal; it keeps what it was given. */
function hangingOnce(result: string) {
  const signals: (AbortSignal | undefined)[] = [];
  const keys: string[] = [];
  return {
    signals,
    keys,
    tool: tool({
      inputSchema: z.object({ id: z.string() }),
      execute: async (_input, { abortSignal }): Promise<string> => {
        signals.push(abortSignal);
        keys.push(callContext().idempotencyKey);
        if (signals.length === 1) return new Promise<string>(() => {});
        return result;
      },
    }),
  };
}

const classified = (events: RecoveryEvent[]) =>
  events.flatMap((e) => (e.type === 'failure.classified' ? [e.classification] : []));

describe('a per-attempt deadline: a tool that never settles does not hang the run', () => {
  it('a read (policy timeoutMs): the attempt’s abortSignal is aborted, TIMEOUT is TRANSIENT, the retry answers', async () => {
    provider.reset([toolCall('get_order', { id: 'o-1' }), text('done')]);
    const clock = createFakeClock();
    const events: RecoveryEvent[] = [];
    const order = hangingOnce('order o-1: shipped');
    const recovery = createRecovery({
      runId: 'run-t1',
      clock,
      policies: { get_order: { sideEffects: false, timeoutMs: 2_000 } },
      onEvent: (event) => events.push(event),
    });

    await driveClock(
      clock,
      generateText({
        model: chat(),
        prompt: 'Where is o-1?',
        tools: recovery.tools({ get_order: order.tool }),
        stopWhen: [isStepCount(5), recovery.stopWhen],
      }),
    );

    expect(order.signals).toHaveLength(2);
    const [first, second] = order.signals;
    expect(first?.aborted).toBe(true);
    expect(String(first?.reason)).toMatch(/did not settle within 2000 ms/);
    expect(second?.aborted).toBe(false); // each attempt has its own deadline
    expect(classified(events)).toEqual([
      expect.objectContaining({ failureClass: 'TRANSIENT', code: 'TIMEOUT' }),
    ]);
    expect(provider.toolResults().map((r) => r.output)).toEqual(['order o-1: shipped']);
    expect(recovery.outcome()).toMatchObject({
      status: 'COMPLETED',
      recoveries: [{ tool: 'get_order', code: 'TIMEOUT', action: 'RETRY', attempts: 2 }],
    });
  });

  it.each([
    ['a write', { sideEffects: true }],
    ['an undeclared tool', {}],
  ])(
    '%s (retry.timeoutMs): TIMEOUT is UNKNOWN_OUTCOME, not re-sent, not even when the model asks again',
    async (_label, policy) => {
      provider.reset([
        toolCall('charge_card', { id: 'c-1' }),
        toolCall('charge_card', { id: 'c-1' }),
        text('done'),
      ]);
      const clock = createFakeClock();
      const events: RecoveryEvent[] = [];
      const charge = hangingOnce('charged');
      const recovery = createRecovery({
        runId: 'run-t2',
        clock,
        retry: { timeoutMs: 500 },
        policies: { charge_card: policy },
        onEvent: (event) => events.push(event),
      });

      await driveClock(
        clock,
        generateText({
          model: chat(),
          prompt: 'Charge c-1',
          tools: recovery.tools({ charge_card: charge.tool }),
          stopWhen: isStepCount(5),
        }),
      );

      expect(charge.signals).toHaveLength(1);
      expect(charge.signals[0]?.aborted).toBe(true);
      expect(classified(events)).toEqual([
        expect.objectContaining({ failureClass: 'UNKNOWN_OUTCOME', code: 'TIMEOUT' }),
      ]);
      const [first, again] = provider.toolResults().map((r) => readContract(r.output));
      expect(first).toMatchObject({
        failure_class: 'UNKNOWN_OUTCOME',
        retry_same_action: false,
        code: 'RECONCILE_BY_HAND',
      });
      expect(again).toMatchObject({ retry_same_action: false });
      expect(recovery.outcome()).toMatchObject({
        status: 'FAILED',
        needs_reconciliation: [{ tool: 'charge_card', idempotency_key: charge.keys[0] }],
      });
    },
  );

  it("the tool's signal also aborts on the run's own abort, which reaches the caller untouched", async () => {
    provider.reset([toolCall('get_order', { id: 'o-1' }), text('done')]);
    const clock = createFakeClock();
    const signals: AbortSignal[] = [];
    const controller = new AbortController();
    const reason = new DOMException('The user cancelled.', 'AbortError');
    const recovery = createRecovery({
      runId: 'run-t3',
      clock,
      policies: { get_order: { sideEffects: false, timeoutMs: 60_000 } },
    });
    const run = generateText({
      model: chat(),
      prompt: 'Where is o-1?',
      abortSignal: controller.signal,
      tools: recovery.tools({
        get_order: tool({
          inputSchema: z.object({ id: z.string() }),
          // A tool that honours its signal.
          execute: (_input, { abortSignal }) =>
            new Promise<string>((_resolve, reject) => {
              signals.push(abortSignal!);
              abortSignal?.addEventListener('abort', () => reject(abortSignal.reason));
            }),
        }),
      }),
      stopWhen: [isStepCount(5), recovery.stopWhen],
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    while (signals.length === 0) await new Promise((resolve) => setImmediate(resolve));
    expect(signals[0]).not.toBe(controller.signal); // its own: it also aborts at the deadline
    controller.abort(reason);

    expect(await run).toBe(reason);
    expect(signals[0]?.reason).toBe(reason);
    expect(recovery.outcome().failures).toEqual([]);
  });

  // With a deadline the attempt is raced against it and against the caller's abort: a tool
  // that ignores its signal cannot keep a cancelled run waiting until the deadline.
  it("the run's own abort ends the run at once, even when the tool ignores its signal", async () => {
    provider.reset([toolCall('get_order', { id: 'o-1' }), text('done')]);
    const clock = createFakeClock();
    const order = hangingOnce('never');
    const controller = new AbortController();
    const recovery = createRecovery({
      runId: 'run-t4',
      clock,
      policies: { get_order: { sideEffects: false, timeoutMs: 60_000 } },
    });
    let settled = false;
    void generateText({
      model: chat(),
      prompt: 'Where is o-1?',
      abortSignal: controller.signal,
      tools: recovery.tools({ get_order: order.tool }),
      stopWhen: [isStepCount(5), recovery.stopWhen],
    })
      .catch(() => undefined)
      .finally(() => {
        settled = true;
      });
    while (order.signals.length === 0) await new Promise((resolve) => setImmediate(resolve));
    controller.abort(new DOMException('The user cancelled.', 'AbortError'));
    for (let i = 0; i < 50 && !settled; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(true);
  });
});
