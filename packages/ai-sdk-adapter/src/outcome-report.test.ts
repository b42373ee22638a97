import { createRecovery } from '@recourse/ai-sdk';
import type { RetryBudget } from '@recourse/core';
import { createFakeClock } from '@recourse/core/testing';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createDownstream,
  driveClock,
  httpFailure,
  readContract,
  useScriptedProvider,
} from '../test-support/harness.js';

const { provider, chat } = useScriptedProvider();
const refundArgs = { paymentId: 'p-42', amount: 100 };

describe('the outcome tells what recourse did', () => {
  it('recoveries lists each call that failed and then ended with a value; the summary names them; completed_steps names each operation once', async () => {
    provider.reset([
      toolCall('lookup_payment', { paymentId: 'p-42' }), // 503, then found
      toolCall('refund_payment', refundArgs), // lost response, reconciled as happened
      toolCall('refund_payment', refundArgs), // the model asks again: answered from the ledger
      toolCall('lookup_payment', { paymentId: 'p-42' }), // a read, asked again: runs again
      text('Refunded.'),
    ]);
    const clock = createFakeClock();
    const downstream = createDownstream();
    let lookups = 0;
    let refunds = 0;
    const recovery = createRecovery({
      runId: 'run-o1',
      clock,
      random: () => 0.5,
      policies: {
        lookup_payment: { sideEffects: false },
        refund_payment: {
          sideEffects: true,
          reconcile: (_i, { idempotencyKey }) =>
            downstream.findByKey(idempotencyKey)
              ? { happened: true, result: 'refunded' }
              : { happened: false },
        },
      },
    });

    await driveClock(
      clock,
      generateText({
        model: chat(),
        prompt: 'Refund p-42',
        tools: recovery.tools({
          lookup_payment: tool({
            inputSchema: z.object({ paymentId: z.string() }),
            execute: async () => {
              if (++lookups === 1) throw httpFailure(503);
              return 'p-42: 100 EUR';
            },
          }),
          refund_payment: tool({
            inputSchema: z.object({ paymentId: z.string(), amount: z.number() }),
            execute: async (input) => downstream.apply(input, ++refunds === 1),
          }),
        }),
        stopWhen: [isStepCount(8), recovery.stopWhen],
      }),
    );

    expect(downstream.applied).toHaveLength(1);
    const outcome = recovery.outcome();
    expect(outcome.status).toBe('COMPLETED');
    expect(outcome.recoveries).toEqual([
      {
        tool: 'lookup_payment',
        tool_call_id: 'call_1',
        failure_class: 'TRANSIENT',
        code: 'SERVICE_UNAVAILABLE',
        action: 'RETRY',
        attempts: 2,
      },
      {
        tool: 'refund_payment',
        tool_call_id: 'call_2',
        failure_class: 'UNKNOWN_OUTCOME',
        code: 'TIMEOUT',
        action: 'RECONCILE',
        attempts: 1,
      },
    ]);
    expect(outcome.summary).toContain('lookup_payment (SERVICE_UNAVAILABLE, retried)');
    expect(outcome.summary).toContain('refund_payment (TIMEOUT, reconciled)');
    expect(outcome.completed_steps).toEqual(['lookup_payment', 'refund_payment']);
    expect(outcome.failures).toEqual([]);
  });

  it('a replay behind the key and a fallback are recoveries too', async () => {
    provider.reset([
      [toolCall('refund_payment', refundArgs), toolCall('get_rate', { currency: 'EUR' })],
      text('done'),
    ]);
    const downstream = createDownstream({ dedupe: true });
    let refunds = 0;
    const recovery = createRecovery({
      runId: 'run-o2',
      retry: { baseDelayMs: 0 },
      policies: {
        refund_payment: { sideEffects: true, idempotent: true },
        get_rate: {
          sideEffects: false,
          maxAttempts: 1,
          fallback: () => 'EUR 1.08 (cached)',
          missingEvidence: 'live rate',
        },
      },
    });
    await generateText({
      model: chat(),
      prompt: 'Refund and rate',
      tools: recovery.tools({
        refund_payment: tool({
          inputSchema: z.object({ paymentId: z.string(), amount: z.number() }),
          execute: async (input) => downstream.apply(input, ++refunds === 1),
        }),
        get_rate: tool({
          inputSchema: z.object({ currency: z.string() }),
          execute: async (): Promise<string> => {
            throw httpFailure(503);
          },
        }),
      }),
      stopWhen: [isStepCount(5), recovery.stopWhen],
    });
    expect(downstream.applied).toHaveLength(1);
    const actions = Object.fromEntries(recovery.outcome().recoveries.map((r) => [r.tool, r]));
    expect(actions.refund_payment).toMatchObject({ action: 'REPLAY', attempts: 2 });
    expect(actions.get_rate).toMatchObject({ action: 'FALLBACK', code: 'SERVICE_UNAVAILABLE' });
    expect(recovery.outcome().status).toBe('PARTIAL_RESULT');
  });

  it('ATTEMPTS_EXHAUSTED when maxAttempts ran out; DEPENDENCY_RETRY_BUDGET_EXHAUSTED when the retry budget stopped it', async () => {
    const down = () =>
      tool({
        inputSchema: z.object({ account: z.string() }),
        execute: async (): Promise<string> => {
          throw httpFailure(503);
        },
      });
    const starved: RetryBudget = {
      canRetry: () => false,
      recordFailure: () => {},
      recordSuccess: () => {},
      tokens: () => 0,
    };
    const codes: unknown[] = [];
    for (const retry of [{ maxAttempts: 2, baseDelayMs: 0 }, { budget: starved }]) {
      provider.reset([toolCall('get_balance', { account: 'a-1' }), text('ok')]);
      const recovery = createRecovery({
        runId: 'run-o3',
        defaultPolicy: { sideEffects: false },
        retry,
      });
      await generateText({
        model: chat(),
        prompt: 'Balance?',
        tools: recovery.tools({ get_balance: down() }),
        stopWhen: isStepCount(4),
      });
      const contract = readContract(provider.toolResults()[0]!.output);
      expect(contract).toMatchObject({ failure_class: 'TRANSIENT', retry_same_action: false });
      codes.push(contract.code);
    }
    expect(codes).toEqual(['ATTEMPTS_EXHAUSTED', 'DEPENDENCY_RETRY_BUDGET_EXHAUSTED']);
  });
});
