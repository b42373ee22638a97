import { MemoryLedger } from '@recourse/core';
import {
  createScriptedProvider,
  hostileThrownValues,
  type ProviderServer,
  revokedProxy,
  startProviderServer,
  text,
  toolCall,
} from '@recourse/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRecovery } from './index.js';
import { createClient, type Mode, modes, outputFor, runLoop } from './test-support/harness.js';

// A tool can throw anything and return anything. Whatever it is, the model must receive a
// recovery contract (classified, bounded text) and the loop (the real `openai` client
// against a scripted provider) must not throw.

const provider = createScriptedProvider();
let running: ProviderServer;
beforeAll(() => {
  running = startProviderServer(provider);
});
afterAll(() => running.close());
beforeEach(() => provider.reset());

// core's bound of `error_detail` (contract/quote-as-data: maxQuotedLength + the «» quotes).
const maxDetail = 2_002;
// The whole contract: the detail plus the fixed fields and the guidance.
const maxContract = 4_096;

const throwingToJson = () => ({
  transferId: 't-1',
  toJSON() {
    throw new Error('toJSON exploded');
  },
});

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

/** `calls` calls of `act` through the loop; what the model read back for each, and the run. */
async function runOnce(mode: Mode, sideEffects: boolean, result: () => unknown, calls = 1) {
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
  const tools = recovery.tools({
    act: {
      description: 'Act on an item',
      inputSchema: z.object({ id: z.string() }),
      execute: async () => {
        executed++;
        return result();
      },
    },
  });
  const loop = await runLoop(recovery, createClient(provider), mode, tools, 'Act on x-1');
  const outputs = Array.from({ length: calls }, (_, i) =>
    outputFor(loop.conversation, `call_${i + 1}`),
  );
  return { outputs, executed, outcome: loop.outcome };
}

/** The contract the model read, checked to be bounded text first. */
function boundedContract(output: string | undefined): Record<string, unknown> {
  if (output === undefined) throw new Error('the model received no tool result');
  expect(output.length).toBeLessThanOrEqual(maxContract);
  const contract = JSON.parse(output) as Record<string, unknown>;
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

describe.each(modes)('hostile values through the OpenAI SDK ($api, stream: $stream)', (mode) => {
  describe.each(kinds)('a $kind tool that throws', ({ sideEffects, contract, outcome }) => {
    it.each(hostileThrows)(
      '%s: a classified, bounded contract; the loop goes on',
      async (_, make) => {
        const {
          outputs,
          executed,
          outcome: got,
        } = await runOnce(mode, sideEffects, () => {
          throw make();
        });
        expect(executed).toBe(1);
        expect(boundedContract(outputs[0])).toMatchObject(contract);
        expect(got.status).toBe(outcome);
        // Nothing of what was thrown reached the model beyond the bound, in any request.
        for (const request of provider.requests)
          expect(request.rawBody.length).toBeLessThan(65_536);
      },
    );
  });

  // The code says where it was caught: JSON refusing the value, or the first look at it
  // (a revoked proxy cannot even be asked whether it is a thenable or a stream).
  it.each([
    ['a result whose toJSON throws', throwingToJson, 'RESULT_NOT_SERIALISABLE'],
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
  ] as const)(
    '%s of a read: a PERMANENT contract, not "[object Object]"; the loop goes on',
    async (_, make, code) => {
      const { outputs, executed, outcome } = await runOnce(mode, false, make);
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
    const { outputs, executed, outcome } = await runOnce(mode, true, throwingToJson, 2);
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
