import { createRecovery } from '@recourse/ai-sdk';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readContract, useScriptedProvider } from '../test-support/harness.js';

const { provider, chat } = useScriptedProvider();

describe('VALIDATION is repaired at most repairBudget times per fingerprint', () => {
  it('a tool that rejects the same arguments: two repairs, then poison ends the loop', async () => {
    const bad = { customerId: 'c-1', email: 'not-an-email' };
    // The model keeps sending the same invalid call; the last two turns must never be requested.
    provider.reset([
      toolCall('update_email', bad),
      toolCall('update_email', bad),
      toolCall('update_email', bad),
      toolCall('update_email', bad),
      text('gave up'),
    ]);
    let executions = 0;
    const recovery = createRecovery({ runId: 'run-v1', repairBudget: 2 });

    const result = await generateText({
      model: chat(),
      prompt: 'Update the email',
      tools: recovery.tools({
        update_email: tool({
          inputSchema: z.object({ customerId: z.string(), email: z.string() }),
          execute: async (): Promise<string> => {
            executions++;
            throw Object.assign(new Error('email: invalid format'), { status: 422 });
          },
        }),
      }),
      stopWhen: [isStepCount(10), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });

    expect(executions).toBe(3);
    expect(result.steps).toHaveLength(3);
    expect(provider.remaining()).toBe(2);
    const contracts = provider.toolResults().map((r) => readContract(r.output));
    expect(contracts.map((c) => c.recommended_recovery)).toEqual(['REPAIR', 'REPAIR']);
    expect(contracts[0]).toMatchObject({ failure_class: 'VALIDATION', repairs_remaining: 1 });
    expect(recovery.outcome()).toMatchObject({ status: 'FAILED', reason: 'POISON' });
  });

  it('SDK-level invalid input (fails the zod inputSchema) counts too, though execute never runs', async () => {
    const bad = { customerId: 'c-1', amount: 'one hundred' };
    provider.reset([
      toolCall('refund_payment', bad),
      toolCall('refund_payment', bad),
      toolCall('refund_payment', bad),
      toolCall('refund_payment', bad),
      text('gave up'),
    ]);
    let executions = 0;
    const recovery = createRecovery({ runId: 'run-v2', repairBudget: 2 });

    const result = await generateText({
      model: chat(),
      prompt: 'Refund',
      tools: recovery.tools({
        refund_payment: tool({
          inputSchema: z.object({ customerId: z.string(), amount: z.number() }),
          execute: async () => {
            executions++;
            return 'refunded';
          },
        }),
      }),
      stopWhen: [isStepCount(10), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });

    expect(executions).toBe(0);
    expect(result.steps).toHaveLength(3);
    expect(provider.remaining()).toBe(2);
    const outcome = recovery.outcome();
    expect(outcome).toMatchObject({ status: 'FAILED', reason: 'POISON' });
    expect(outcome.failures.map((f) => f.recovery)).toEqual(['REPAIR', 'REPAIR', 'ABORT']);
    expect(outcome.failures.every((f) => f.failure_class === 'VALIDATION')).toBe(true);
  });

  it('an unknown tool name is a VALIDATION failure the runtime hears about', async () => {
    provider.reset([toolCall('refund_everything', { all: true }), text('ok')]);
    const recovery = createRecovery({ runId: 'run-v3' });

    await generateText({
      model: chat(),
      prompt: 'Refund',
      tools: recovery.tools({
        refund_payment: tool({
          inputSchema: z.object({ paymentId: z.string() }),
          execute: async () => 'refunded',
        }),
      }),
      stopWhen: [isStepCount(5), recovery.stopWhen],
    });

    expect(recovery.outcome().failures).toEqual([
      expect.objectContaining({
        tool: 'refund_everything',
        failure_class: 'VALIDATION',
        recovery: 'REPAIR',
      }),
    ]);
  });
});
