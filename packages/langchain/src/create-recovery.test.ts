import { MemorySaver } from '@langchain/langgraph';
import { createRecovery, InvalidOptionsError } from '@recourse/langchain';
import { text } from '@recourse/testing';
import { createAgent, tool } from 'langchain';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { useScriptedProvider } from '../test-support/harness.js';

const { provider, model } = useScriptedProvider();
const hello = { messages: [{ role: 'user' as const, content: 'hello' }] };

describe('createRecovery options', () => {
  it('an unknown key fails at construction, naming the field and the key that was meant', () => {
    const attempt = () =>
      createRecovery({
        runId: 'run-1',
        policies: { refund_payment: { sideEffect: true } as never },
      });
    expect(attempt).toThrow(InvalidOptionsError);
    expect(attempt).toThrow(
      /policies\.refund_payment\.sideEffect[\s\S]*did you mean "sideEffects"/,
    );
    expect(() => createRecovery({ runID: 'x' } as never)).toThrow(/did you mean "runId"/);
    expect(() => createRecovery({ warn: 'yes' } as never)).toThrow(/`warn`/);
  });

  it('with a runId, the run exists at once', () => {
    const recovery = createRecovery({ runId: 'run-1' });
    expect(recovery.runId).toBe('run-1');
    expect(recovery.outcome().status).toBe('COMPLETED');
  });

  it('without one, the run is the thread of the first invocation; another thread is refused', async () => {
    provider.reset([text('hi'), text('hi again')]);
    const recovery = createRecovery({});
    const agent = createAgent({
      model: model(),
      tools: [],
      checkpointer: new MemorySaver(),
      middleware: [recovery.middleware],
    });
    expect(recovery.runId).toBeUndefined();
    expect(() => recovery.outcome()).toThrow(/has not started/);

    await agent.invoke(hello, { configurable: { thread_id: 'thread-1' } });
    expect(recovery.runId).toBe('thread-1');
    await agent.invoke(hello, { configurable: { thread_id: 'thread-1' } });
    await expect(agent.invoke(hello, { configurable: { thread_id: 'thread-2' } })).rejects.toThrow(
      /one recovery per run/,
    );
  });

  it('without a runId or a thread, the first invocation fails naming runId', async () => {
    provider.reset([text('hi')]);
    const recovery = createRecovery({});
    const agent = createAgent({ model: model(), tools: [], middleware: [recovery.middleware] });
    await expect(agent.invoke(hello)).rejects.toThrow(/`runId`/);
  });

  it('a policy that names no tool of the agent is reported once, with the name that was meant', async () => {
    provider.reset([text('hi'), text('hi again')]);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const refund = tool(async () => 'ok', {
      name: 'refund_payment',
      description: 'Refund a payment',
      schema: z.object({ paymentId: z.string() }),
    });
    const recovery = createRecovery({
      runId: 'run-typo',
      policies: { refund_paymnet: { sideEffects: true } },
    });
    const agent = createAgent({
      model: model(),
      tools: [refund],
      middleware: [recovery.middleware],
    });

    await agent.invoke(hello);
    await agent.invoke(hello);

    const lines = warn.mock.calls.map((args) => String(args[0]));
    warn.mockRestore();
    expect(lines.filter((line) => line.includes('policies.refund_paymnet'))).toEqual([
      expect.stringContaining('did you mean "refund_payment"'),
    ]);
  });
});
