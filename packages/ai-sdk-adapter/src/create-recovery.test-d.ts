import { createRecovery } from '@recourse/ai-sdk';
import {
  generateText,
  type InferToolInput,
  type InferToolOutput,
  isStepCount,
  streamText,
  ToolLoopAgent,
  tool,
} from 'ai';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';

const recovery = createRecovery({ runId: 'run-types' });
const toolset = {
  refund_payment: tool({
    inputSchema: z.object({ paymentId: z.string(), amount: z.number() }),
    execute: async ({ paymentId }) => ({ refunded: paymentId, at: 1 }),
  }),
};
// A tool without execute (answered by the client) is left as it is.
const withClientTool = {
  ...toolset,
  client_side: tool({ inputSchema: z.object({ question: z.string() }) }),
};

describe('recovery.tools', () => {
  it('keeps every key, input and output type', () => {
    const wrapped = recovery.tools(withClientTool);
    expectTypeOf(wrapped).toEqualTypeOf<typeof withClientTool>();
    expectTypeOf<keyof typeof wrapped>().toEqualTypeOf<'refund_payment' | 'client_side'>();
    expectTypeOf<InferToolInput<typeof wrapped.refund_payment>>().toEqualTypeOf<{
      paymentId: string;
      amount: number;
    }>();
    expectTypeOf<InferToolOutput<typeof wrapped.refund_payment>>().toEqualTypeOf<{
      refunded: string;
      at: number;
    }>();
  });

  it('plugs into generateText, streamText and ToolLoopAgent without casts', () => {
    const tools = recovery.tools(toolset);
    const model = 'openai/gpt-4o';
    const run = () =>
      generateText({
        model,
        prompt: 'hi',
        tools,
        stopWhen: [isStepCount(5), recovery.stopWhen],
        prepareStep: recovery.prepareStep,
      });
    const stream = () =>
      streamText({
        model,
        prompt: 'hi',
        tools,
        stopWhen: recovery.stopWhen,
        prepareStep: recovery.prepareStep,
      });
    const agent = () =>
      new ToolLoopAgent({
        model,
        tools,
        stopWhen: recovery.stopWhen,
        prepareStep: recovery.prepareStep,
      });
    expectTypeOf(run).returns.resolves.toHaveProperty('steps');
    expectTypeOf(stream).returns.toHaveProperty('steps');
    expectTypeOf(agent).returns.toHaveProperty('generate');
  });
});

describe('policies given with the tools', () => {
  it('type each callback by its tool: input and output', () => {
    recovery.tools(toolset, {
      refund_payment: {
        sideEffects: true,
        reconcile: (input) => {
          expectTypeOf(input).toEqualTypeOf<{ paymentId: string; amount: number }>();
          return { happened: false };
        },
        compensate: (input, { result }) => {
          expectTypeOf(input.paymentId).toEqualTypeOf<string>();
          expectTypeOf(result).toEqualTypeOf<{ refunded: string; at: number } | undefined>();
        },
        check: (result) => {
          expectTypeOf(result).toEqualTypeOf<{ refunded: string; at: number }>();
          return undefined;
        },
        resource: (input) => `payment:${input.paymentId}`,
      },
    });
    recovery.tools(toolset, {
      // @ts-expect-error: not a field of this tool's input
      refund_payment: { resource: (input) => `payment:${input.orderId}` },
    });
  });
});
