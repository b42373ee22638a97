import { createRecovery } from '@recourse/ai-sdk';
import { callContext, MemoryLedger, type RecoveryEvent } from '@recourse/core';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readContract, useScriptedProvider } from '../test-support/harness.js';

const { provider, chat } = useScriptedProvider();
const refundArgs = { paymentId: 'p-42', amount: 100 };

const cyclic: Record<string, unknown> = { id: 're_1' };
cyclic.self = cyclic;
const values: [string, Record<string, unknown>, string][] = [
  ['a BigInt', { id: 're_1', cents: 10_000n }, 'holds a BigInt at .cents'],
  ['a cycle', cyclic, 'holds a cycle at .self'],
  [
    'a function deep inside',
    { id: 're_1', links: [{ open: () => 'https://pay.test/re_1' }] },
    'holds a function at .links[0].open',
  ],
  ['a symbol', { id: 're_1', tag: Symbol('refund') }, 'holds a symbol at .tag'],
  // JSON would store these as {}: a duplicate would get an empty object instead of the result.
  [
    'a Map (JSON writes {})',
    { id: 're_1', lines: [{ sku: 'sku-1' }, { sku: 'sku-2', taxes: new Map([['vat', 19]]) }] },
    'holds a Map at .lines[1].taxes',
  ],
  [
    'an Error (JSON writes {})',
    { id: 're_1', warning: new Error('partial') },
    'holds an Error (Error) at .warning',
  ],
];

/** A refund tool that returns `value`, formatted for the model by its own toModelOutput. */
function refundTool(value: Record<string, unknown>, executed: string[]) {
  return tool({
    description: 'Refund a payment',
    inputSchema: z.object({ paymentId: z.string(), amount: z.number() }),
    execute: async () => {
      executed.push(callContext().idempotencyKey);
      return value;
    },
    // Without it the SDK itself could not send a BigInt or a cycle to the model.
    toModelOutput: ({ output }) => ({ type: 'text', value: `refund ${String(output.id)} done` }),
  });
}

describe('a result JSON cannot hold is never stored as null', () => {
  it.each(values)(
    '%s: the caller gets its value; every later duplicate gets RESULT_NOT_STORED and the refund never runs again',
    async (_label, value, reason) => {
      provider.reset([
        toolCall('refund_payment', refundArgs),
        toolCall('refund_payment', refundArgs),
        text('done'),
      ]);
      const ledger = new MemoryLedger();
      const executed: string[] = [];
      const events: RecoveryEvent[] = [];
      const options = {
        runId: 'run-s1',
        ledger,
        policies: { refund_payment: { sideEffects: true } },
      };
      const recovery = createRecovery({ ...options, onEvent: (event) => events.push(event) });
      const result = await generateText({
        model: chat(),
        prompt: 'Refund p-42',
        tools: recovery.tools({ refund_payment: refundTool(value, executed) }),
        stopWhen: isStepCount(5),
      });

      expect(executed).toHaveLength(1);
      const key = executed[0]!;
      // The caller (the SDK, then the application in step.content) got the value itself.
      const part = result.steps[0]!.content.find((p) => p.type === 'tool-result') as {
        output: unknown;
      };
      expect(part.output).toBe(value);
      const [first, again] = provider.toolResults().map((r) => r.output);
      expect(first).toBe('refund re_1 done');
      // The duplicate reached the model as the contract, not through the tool's formatter.
      const contract = {
        failure_class: 'UNKNOWN_OUTCOME',
        recommended_recovery: 'REOBSERVE',
        retry_same_action: false,
        code: 'RESULT_NOT_STORED',
      };
      expect(readContract(again!)).toMatchObject(contract);
      expect(events).toContainEqual(
        expect.objectContaining({
          type: 'result.unstorable',
          tool: 'refund_payment',
          idempotencyKey: key,
          reason: `the result ${reason}`,
        }),
      );
      // Completed without a stored result: not null, not {}.
      expect(await ledger.get(key)).toMatchObject({
        state: 'completed',
        result: { unstorable: `the result ${reason}` },
      });
      expect((await ledger.get(key))?.result?.json).toBeUndefined();

      // A restart: a new recovery on the same ledger, the model asks for the refund again.
      provider.reset([toolCall('refund_payment', refundArgs), text('done')]);
      const restarted = createRecovery(options);
      await generateText({
        model: chat(),
        prompt: 'Refund p-42',
        tools: restarted.tools({ refund_payment: refundTool(value, executed) }),
        stopWhen: isStepCount(5),
      });
      expect(executed).toHaveLength(1);
      expect(readContract(provider.toolResults()[0]!.output)).toMatchObject(contract);
    },
  );

  it('undefined is nothing, not unstorable: a duplicate gets undefined again', async () => {
    provider.reset([
      toolCall('notify', { to: 'ops' }),
      toolCall('notify', { to: 'ops' }),
      text('ok'),
    ]);
    let runs = 0;
    const recovery = createRecovery({
      runId: 'run-s2',
      policies: { notify: { sideEffects: true } },
    });
    const result = await generateText({
      model: chat(),
      prompt: 'Notify ops',
      tools: recovery.tools({
        notify: tool({
          inputSchema: z.object({ to: z.string() }),
          execute: async (): Promise<undefined> => {
            runs++;
          },
        }),
      }),
      stopWhen: isStepCount(5),
    });
    expect(runs).toBe(1);
    const outputs = result.steps
      .flatMap((step) => step.content)
      .filter((p) => p.type === 'tool-result')
      .map((p) => (p as { output: unknown }).output);
    expect(outputs).toEqual([undefined, undefined]);
  });
});
