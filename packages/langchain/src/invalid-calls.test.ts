import { callContext, createRecovery, recoveryContractOf } from '@recourse/langchain';
import { text, toolCall } from '@recourse/testing';
import { createAgent, tool } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { systemTextOf, toolOutputs, useScriptedProvider } from '../test-support/harness.js';

const { provider, model } = useScriptedProvider();
const prompt = { messages: [{ role: 'user' as const, content: 'Refund 100 on p-42' }] };
// The model's arguments break off mid-object: LangChain's parser puts the call in
// `invalid_tool_calls`, and no tool runs.
const broken = '{"paymentId": "p-42", "amount": 10';

/** An agent with one refund tool under recourse; `sent` records each refund that ran. */
function refundAgent(runId: string) {
  const sent: unknown[] = [];
  const recovery = createRecovery({ runId, policies: { refund_payment: { sideEffects: true } } });
  const agent = createAgent({
    model: model(),
    tools: [refundTool(sent)],
    middleware: [recovery.middleware],
  });
  return { sent, recovery, agent };
}

function refundTool(sent: unknown[]) {
  return tool(
    async (input) => {
      sent.push({ ...input, key: callContext().idempotencyKey });
      return 'refunded';
    },
    {
      name: 'refund_payment',
      description: 'Refund a payment',
      schema: z.object({ paymentId: z.string(), amount: z.number() }),
    },
  );
}

describe('tool calls whose arguments did not parse (invalid_tool_calls)', () => {
  it('are a VALIDATION failure: the contract goes to the model, which repairs the call', async () => {
    provider.reset([
      toolCall('refund_payment', broken),
      toolCall('refund_payment', { paymentId: 'p-42', amount: 100 }),
      text('refunded 100'),
    ]);
    const { sent, recovery, agent } = refundAgent('run-invalid-1');

    const result = await agent.invoke(prompt);

    expect(sent).toHaveLength(1);
    expect(toolOutputs(provider)[0]).toMatchObject({
      failure_class: 'VALIDATION',
      recommended_recovery: 'REPAIR',
      retry_same_action: false,
      tool: 'refund_payment',
    });
    expect(systemTextOf(provider, 1)).toContain('[recourse]');
    expect(result.messages.at(-1)?.text).toBe('refunded 100');
    expect(recovery.outcome().status).toBe('COMPLETED');
  });

  it('beside a valid call: the valid one runs, the repair reaches the model as guidance', async () => {
    provider.reset([
      [
        toolCall('refund_payment', broken),
        toolCall('refund_payment', { paymentId: 'p-43', amount: 5 }),
      ],
      text('refunded p-43; p-42 needs its amount'),
    ]);
    const { sent, recovery, agent } = refundAgent('run-invalid-mixed');

    await agent.invoke(prompt);

    expect(sent).toMatchObject([{ paymentId: 'p-43' }]);
    // LangChain sends the provider the valid call only: only it may be answered.
    expect(toolOutputs(provider)).toEqual(['refunded']);
    expect(systemTextOf(provider, 1)).toContain('[recourse]');
    expect(recovery.outcome().failures).toMatchObject([
      { tool: 'refund_payment', failure_class: 'VALIDATION' },
    ]);
  });

  it('the same broken call past the repair budget is poison: the loop stops', async () => {
    provider.reset([
      toolCall('refund_payment', broken),
      toolCall('refund_payment', broken),
      toolCall('refund_payment', broken),
      text('never asked'),
    ]);
    const { sent, recovery, agent } = refundAgent('run-invalid-poison');

    const result = await agent.invoke(prompt);

    expect(provider.requests).toHaveLength(3);
    expect(sent).toEqual([]);
    expect(recoveryContractOf(result.messages.at(-1))).toMatchObject({ code: 'POISON' });
    expect(recovery.outcome()).toMatchObject({ status: 'FAILED', reason: 'POISON' });
  });

  it('an unknown tool name is the model’s to repair (NO_SUCH_TOOL)', async () => {
    provider.reset([
      toolCall('refund', { paymentId: 'p-42', amount: 100 }),
      toolCall('refund_payment', { paymentId: 'p-42', amount: 100 }),
      text('refunded 100'),
    ]);
    const { sent, recovery, agent } = refundAgent('run-unknown-tool');

    await agent.invoke(prompt);

    expect(toolOutputs(provider)[0]).toMatchObject({
      failure_class: 'VALIDATION',
      code: 'NO_SUCH_TOOL',
      recommended_recovery: 'REPAIR',
    });
    expect(sent).toHaveLength(1);
    expect(recovery.outcome()).toMatchObject({
      completed_steps: ['refund_payment'],
      failures: [{ tool: 'refund', code: 'NO_SUCH_TOOL' }],
    });
  });

  it('without recourse (the baseline): the agent ends on the broken call, nothing refunded, no error', async () => {
    provider.reset([toolCall('refund_payment', broken), text('never asked')]);
    const sent: unknown[] = [];
    const agent = createAgent({ model: model(), tools: [refundTool(sent)] });

    const result = await agent.invoke(prompt);

    expect(provider.requests).toHaveLength(1);
    expect(sent).toEqual([]);
    expect(result.messages.at(-1)).toMatchObject({ tool_calls: [] });
  });
});
