import { type AiSdkRecoveryOptions, createRecovery } from '@recourse/ai-sdk';
import { MemoryLedger } from '@recourse/core';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { httpFailure, readContract, useScriptedProvider } from '../test-support/harness.js';

const { provider, chat } = useScriptedProvider();
const bad = { invoice: 'inv-7', total: 'twelve' };
const good = { invoice: 'inv-8', total: '12' };

/** An extractor the API rejects with a 422 for `bad`; it counts what it ran, by invoice. */
function createExtractor() {
  const ran: string[] = [];
  const extract = tool({
    inputSchema: z.object({ invoice: z.string(), total: z.string() }),
    execute: async ({ invoice, total }) => {
      ran.push(invoice);
      if (Number.isNaN(Number(total))) throw httpFailure(422, {}, 'total must be a number');
      return `${invoice}: ${total}`;
    },
  });
  return { ran, extract };
}

const poison = {
  failure_class: 'VALIDATION',
  recommended_recovery: 'ABORT',
  retry_same_action: false,
  code: 'POISON',
};

async function spendRepairBudget(options: AiSdkRecoveryOptions) {
  // repairBudget 2: repaired twice, poison at the third identical failure.
  provider.reset([
    toolCall('extract', bad),
    toolCall('extract', bad),
    toolCall('extract', bad),
    text('gave up'),
  ]);
  const extractor = createExtractor();
  const recovery = createRecovery(options);
  await generateText({
    model: chat(),
    prompt: 'Extract inv-7',
    tools: recovery.tools({ extract: extractor.extract }),
    stopWhen: [isStepCount(6), recovery.stopWhen],
    prepareStep: recovery.prepareStep,
  });
  expect(extractor.ran).toEqual(['inv-7', 'inv-7', 'inv-7']);
  expect(readContract(provider.toolResults()[1]!.output)).toMatchObject({
    recommended_recovery: 'REPAIR',
  });
  return recovery;
}

/** One more run of the same call (and, with `others`, a call with another input). */
async function callAgain(options: AiSdkRecoveryOptions, others = false) {
  provider.reset([
    others ? [toolCall('extract', bad), toolCall('extract', good)] : toolCall('extract', bad),
    text('done'),
  ]);
  const extractor = createExtractor();
  const recovery = createRecovery(options);
  await generateText({
    model: chat(),
    prompt: 'Extract inv-7',
    tools: recovery.tools({ extract: extractor.extract }),
    stopWhen: isStepCount(4),
  });
  return { ran: extractor.ran, outputs: provider.toolResults().map((r) => r.output) };
}

describe('a poison step stays poison before it runs', () => {
  it("in this process (onPoison 'replan'): the same input is refused before it runs; another input runs", async () => {
    provider.reset([
      toolCall('extract', bad),
      toolCall('extract', bad),
      toolCall('extract', bad),
      [toolCall('extract', bad), toolCall('extract', good)],
      text('done'),
    ]);
    const extractor = createExtractor();
    const recovery = createRecovery({
      runId: 'run-x1',
      onPoison: 'replan',
      policies: { extract: { sideEffects: false } },
    });
    await generateText({
      model: chat(),
      prompt: 'Extract',
      tools: recovery.tools({ extract: extractor.extract }),
      stopWhen: [isStepCount(6), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });
    expect(extractor.ran).toEqual(['inv-7', 'inv-7', 'inv-7', 'inv-8']);
    const outputs = provider.toolResults().map((r) => r.output);
    // 'replan': the step stays quarantined and the model is asked for a new plan.
    const quarantined = { ...poison, recommended_recovery: 'REPLAN' };
    expect(readContract(outputs[2]!)).toMatchObject(quarantined);
    expect(readContract(outputs[3]!)).toMatchObject(quarantined);
    expect(outputs[4]).toBe('inv-8: 12');
  });

  it('on another runtime sharing the ledger, created before the step became poison', async () => {
    const ledger = new MemoryLedger();
    const options = { runId: 'run-x2', ledger, policies: { extract: { sideEffects: false } } };
    const otherWorker = createRecovery(options); // already running when the budget is spent
    await spendRepairBudget(options);

    provider.reset([toolCall('extract', bad), text('done')]);
    const extractor = createExtractor();
    await generateText({
      model: chat(),
      prompt: 'Extract inv-7',
      tools: otherWorker.tools({ extract: extractor.extract }),
      stopWhen: isStepCount(4),
    });
    expect(extractor.ran).toEqual([]);
    expect(readContract(provider.toolResults()[0]!.output)).toMatchObject(poison);
  });

  it('after a restart: a new recovery on the same ledger refuses the same input, runs another', async () => {
    const ledger = new MemoryLedger();
    // Each invoice its own resource: the two reads of one turn are unrelated and run side by
    // side (a read reaching everything would wait for the poison refusal, which stops the run).
    const extract = {
      sideEffects: false,
      resource: (i: { invoice: string }) => `invoice:${i.invoice}`,
    };
    const options = { runId: 'run-x3', ledger, policies: { extract } };
    const first = await spendRepairBudget(options);
    expect(first.outcome()).toMatchObject({ status: 'FAILED', reason: 'POISON' });

    const { ran, outputs } = await callAgain(options, true);
    expect(ran).toEqual(['inv-8']);
    expect(readContract(outputs[0]!)).toMatchObject(poison);
    expect(outputs[1]).toBe('inv-8: 12');
  });
});
