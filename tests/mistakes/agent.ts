import type { AiSdkRecovery } from '@recourse/ai-sdk';
import { callContext } from '@recourse/core';
import type { FakeClock } from '@recourse/core/testing';
import { generateText, isStepCount, type LanguageModel, type ToolSet, tool } from 'ai';
import { z } from 'zod';
import { storesIdle } from './ledgers.js';
import { getPayment, postRefund } from './payments-service.js';

export const refundArgs = { paymentId: 'p-42', amount: 100 };
export const refundSchema = z.object({ paymentId: z.string(), amount: z.number() });

/** The refund tool a user writes: POST the refund with the call's idempotency key. */
export function refundTool() {
  return tool({
    description: 'Refund a payment',
    inputSchema: refundSchema,
    execute: async (input, { abortSignal }) =>
      postRefund(input, callContext().idempotencyKey, abortSignal),
  });
}

/** A read: look a payment up. */
export function lookupTool() {
  return tool({
    description: 'Look up a payment',
    inputSchema: z.object({ paymentId: z.string() }),
    execute: async ({ paymentId }, { abortSignal }) => getPayment(paymentId, abortSignal),
  });
}

export interface RunAgentOptions {
  /**
   * Let the recovery end the loop (`stopWhen`, `prepareStep`). Default false: the model's
   * every call reaches the wrapper, which is where a repeat must be refused.
   */
  useRecoveryLoop?: boolean | undefined;
  clock?: FakeClock | undefined;
  /** With `clock`: time stands still until this resolves (say, until the service has the request). */
  startClockWhen?: Promise<unknown> | undefined;
  abortSignal?: AbortSignal | undefined;
}

/** One `generateText` agent loop through the recovery, as the README shows it. */
export async function runAgent(
  model: LanguageModel,
  recovery: AiSdkRecovery,
  tools: ToolSet,
  options: RunAgentOptions = {},
) {
  const loop = options.useRecoveryLoop ?? false;
  const run = generateText({
    model,
    prompt: 'Refund p-42',
    tools: recovery.tools(tools),
    stopWhen: loop ? [isStepCount(8), recovery.stopWhen] : isStepCount(8),
    ...(loop ? { prepareStep: recovery.prepareStep } : {}),
    ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
  });
  if (!options.clock) return run;
  await Promise.race([options.startClockWhen, run]);
  return driveClock(options.clock, run);
}

/**
 * Runs `work` while waking the fake clock's sleepers, one per turn of the event loop, so
 * real I/O (msw's fetch) always makes progress between two timers: a lease renewal ticker
 * that always has a next sleep cannot starve it. Time stands still while a store (Redis,
 * PostgreSQL) is answering: its round trip takes real time, not the clock's.
 */
export async function driveClock<T>(clock: FakeClock, work: Promise<T>): Promise<T> {
  let settled = false;
  const tracked = work.finally(() => {
    settled = true;
  });
  while (!settled) {
    await new Promise((resolve) => setImmediate(resolve));
    await storesIdle();
    if (!settled) await clock.next();
  }
  return tracked;
}
