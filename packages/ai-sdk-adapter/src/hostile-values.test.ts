import { createRecovery } from '@recourse/ai-sdk';
import { MemoryLedger } from '@recourse/core';
import { hostileThrownValues, revokedProxy, text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, type LanguageModel, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readContract, useScriptedProvider } from '../test-support/harness.js';

// A tool can throw anything and return anything. Whatever it is, the model must receive a
// recovery contract (classified, bounded text) and the loop must not throw.

const { provider, chat, responses } = useScriptedProvider();

// core's bound of `error_detail` (contract/quote-as-data: maxQuotedLength + the «» quotes).
const maxDetail = 2_002;
// The whole contract: the detail plus the fixed fields and the guidance.
const maxContract = 4_096;

const hostileThrows = hostileThrownValues;

const kinds = [
  {
    kind: 'read',
    sideEffects: false,
    contract: { failure_class: 'PERMANENT', recommended_recovery: 'REPLAN' },
    outcome: 'COMPLETED',
  },
  {
    kind: 'write',
    sideEffects: true,
    contract: {
      failure_class: 'UNKNOWN_OUTCOME',
      recommended_recovery: 'ABORT',
      code: 'RECONCILE_BY_HAND',
    },
    outcome: 'FAILED',
  },
] as const;

const models = [
  { api: 'chat', model: chat },
  { api: 'responses', model: responses },
] as const;

/** One call of `act` through generateText; what the model read back, and the run. */
async function runOnce(
  model: () => LanguageModel,
  sideEffects: boolean,
  result: () => unknown,
  calls = 1,
) {
  provider.reset([
    ...Array.from({ length: calls }, () => toolCall('act', { id: 'x-1' })),
    text('done'),
  ]);
  let executed = 0;
  const recovery = createRecovery({
    runId: 'run-hostile-values',
    ledger: new MemoryLedger(),
    retry: { baseDelayMs: 0 },
    policies: { act: { sideEffects } },
  });
  const run = await generateText({
    model: model(),
    prompt: 'Act on x-1',
    tools: recovery.tools({
      act: tool({
        description: 'Act on an item',
        inputSchema: z.object({ id: z.string() }),
        execute: async () => {
          executed++;
          return result();
        },
      }),
    }),
    // No recovery.stopWhen: the model reads every contract, also the one that stops the run.
    stopWhen: isStepCount(calls + 2),
  });
  const outputs = provider.toolResults().map((r) => r.output);
  return { run, outputs, executed, outcome: recovery.outcome() };
}

/** The contract the model read, checked to be bounded text first. */
function boundedContract(output: string | undefined): Record<string, unknown> {
  if (output === undefined) throw new Error('the model received no tool result');
  expect(output.length).toBeLessThanOrEqual(maxContract);
  const contract = readContract(output);
  expect(typeof contract.failure_class).toBe('string');
  expect(typeof contract.recommended_recovery).toBe('string');
  expect(contract.retry_same_action).toBe(false);
  const detail = contract.error_detail;
  if (detail !== undefined) {
    expect(typeof detail).toBe('string');
    expect((detail as string).length).toBeLessThanOrEqual(maxDetail);
  }
  return contract;
}

describe.each(models)('hostile values through the AI SDK ($api)', ({ model }) => {
  describe.each(kinds)('a $kind tool that throws', ({ sideEffects, contract, outcome }) => {
    it.each(hostileThrows)(
      '%s: a classified, bounded contract; the loop goes on',
      async (_, make) => {
        const {
          run,
          outputs,
          executed,
          outcome: got,
        } = await runOnce(model, sideEffects, () => {
          throw make();
        });
        expect(executed).toBe(1);
        expect(boundedContract(outputs[0])).toMatchObject(contract);
        expect(got.status).toBe(outcome);
        // Nothing of what was thrown reached the model beyond the bound, in any request.
        for (const request of provider.requests)
          expect(request.rawBody.length).toBeLessThan(65_536);
        expect(run.steps.length).toBeGreaterThanOrEqual(1);
      },
    );
  });

  // The code says where it was caught: JSON refusing the value, or the wrapper's first look
  // at it (a revoked proxy cannot even be asked whether it is a stream).
  const unsendable: [string, () => unknown, string][] = [
    [
      'a result whose toJSON throws',
      () => ({
        id: 'x-1',
        toJSON() {
          throw new Error('toJSON exploded');
        },
      }),
      'RESULT_NOT_SERIALISABLE',
    ],
    [
      'a result with a throwing getter',
      () => ({
        get id() {
          throw new Error('getter exploded');
        },
      }),
      'RESULT_NOT_SERIALISABLE',
    ],
    ['a revoked Proxy as the result', revokedProxy, 'UNKNOWN'],
  ];

  it.each(unsendable)(
    '%s of a read: a PERMANENT contract, the loop goes on',
    async (_, make, code) => {
      const { outputs, executed, outcome } = await runOnce(model, false, make);
      expect(executed).toBe(1);
      expect(boundedContract(outputs[0])).toMatchObject({
        failure_class: 'PERMANENT',
        recommended_recovery: 'REPLAN',
        code,
      });
      expect(outcome.status).toBe('COMPLETED');
    },
  );

  it('a result whose toJSON throws, of a write: RESULT_NOT_STORED, and asked again it is not re-sent', async () => {
    const { outputs, executed, outcome } = await runOnce(
      model,
      true,
      () => ({
        transferId: 't-1',
        toJSON() {
          throw new Error('toJSON exploded');
        },
      }),
      2,
    );
    expect(executed).toBe(1);
    const expected = {
      failure_class: 'UNKNOWN_OUTCOME',
      recommended_recovery: 'REOBSERVE',
      code: 'RESULT_NOT_STORED',
    };
    expect(boundedContract(outputs[0])).toMatchObject(expected);
    expect(boundedContract(outputs[1])).toMatchObject(expected);
    expect(outcome.status).toBe('PARTIAL_RESULT');
  });
});
