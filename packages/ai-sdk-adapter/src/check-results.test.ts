import { createRecovery } from '@recourse/ai-sdk';
import { type CiReport, checkResultsOptions, describeCheckResults } from '@recourse/core/testing';
import { callService, createCiService, text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, type LanguageModel, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  failureIn,
  instructionsSent,
  readContract,
  useScriptedProvider,
} from '../test-support/harness.js';

// The shared check-results suite (`@recourse/core/testing`) through generateText, then what
// only the AI SDK shows (a loop without recovery.stopWhen).

const { provider, chat, responses, use } = useScriptedProvider();

const runTestsTool = () =>
  tool({
    description: 'Run a test suite in CI',
    inputSchema: z.object({ suite: z.string() }),
    execute: async (input) =>
      (await callService('POST', 'https://ci.test/runs', input)) as CiReport,
  });

const models = [
  { api: 'chat', model: chat },
  { api: 'responses', model: responses },
] as const;

describeCheckResults(
  'check(result, input) through generateText ($api)',
  models,
  ({ model }: { model: () => LanguageModel }) => ({
    guidanceMark: '[recourse] ',
    async run(plan) {
      const ci = createCiService(plan.reports);
      use(ci.handler);
      provider.reset([
        ...Array.from({ length: plan.calls }, () => toolCall('run_tests', { suite: 'checkout' })),
        text(plan.answer),
      ]);
      const recovery = createRecovery(checkResultsOptions(plan));
      const result = await generateText({
        model: model(),
        prompt: 'Make the checkout tests pass',
        tools: recovery.tools({ run_tests: runTestsTool() }),
        stopWhen: [isStepCount(plan.maxSteps), recovery.stopWhen],
        prepareStep: recovery.prepareStep,
      });
      // What the model read; a call whose failure ended the loop is only in its step.
      const read = provider.toolResults().map((r) => r.output);
      const output = (index: number) =>
        read[index] ?? JSON.stringify(failureIn(result.steps[index]).contract);
      return {
        runs: ci.runs,
        steps: result.steps.length,
        requests: provider.requests.length,
        remaining: provider.remaining(),
        output,
        contract: (index) => readContract(output(index)),
        value: (index) => result.steps[index]?.toolResults[0]?.output,
        guidance: (index) => instructionsSent(provider, index),
        requestBodies: provider.requests.map((request) => request.rawBody),
        outcome: recovery.outcome(),
        text: result.text,
      };
    },
  }),
);

const failing: CiReport = { status: 'FAIL', signature: 'AssertionError at checkout.test.ts:12' };
const suite = { suite: 'checkout' };
const failedRun = (report: CiReport) =>
  report.status === 'FAIL' ? { message: `tests failed: ${report.signature}` } : undefined;

describe.each(models)('check(result, input) through generateText ($api)', ({ model }) => {
  it('without stopWhen, a fourth identical call is answered without running the suite', async () => {
    const ci = createCiService([failing]);
    use(ci.handler);
    const runs = ci.runs;
    provider.reset([
      toolCall('run_tests', suite),
      toolCall('run_tests', suite),
      toolCall('run_tests', suite),
      toolCall('run_tests', suite),
      text('stopped'),
    ]);
    const recovery = createRecovery({ runId: 'run-c7' });
    await generateText({
      model: model(),
      prompt: 'Make the checkout tests pass',
      tools: recovery.tools(
        { run_tests: runTestsTool() },
        { run_tests: { sideEffects: false, check: failedRun } },
      ),
      stopWhen: isStepCount(8),
    });

    expect(runs).toHaveLength(3);
    expect(provider.remaining()).toBe(0);
    const outputs = provider.toolResults().map((r) => readContract(r.output));
    expect(outputs[2]).toMatchObject({ code: 'POISON' });
    expect(outputs[3]).toMatchObject({ code: 'RUN_STOPPED', retry_same_action: false });
    expect(recovery.outcome()).toMatchObject({ status: 'FAILED', reason: 'POISON' });
  });
});
