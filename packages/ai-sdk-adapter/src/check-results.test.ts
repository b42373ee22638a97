import { createRecovery } from '@recourse/ai-sdk';
import type { CheckFailure } from '@recourse/core';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, tool } from 'ai';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  allBodies,
  callService,
  failureIn,
  instructionsSent,
  readContract,
  useScriptedProvider,
} from '../test-support/harness.js';

const { provider, chat, responses, use } = useScriptedProvider();

interface Report {
  status: 'PASS' | 'FAIL' | 'PENDING';
  signature?: string;
}

const failing: Report = { status: 'FAIL', signature: 'AssertionError at checkout.test.ts:12' };

/**
 * A CI service over HTTP: every POST /runs is a test run, answered with the next report of
 * `reports` (the last one again once they run out). It answers 200 every time: whether the
 * job was done is in the body, which only a `check` can read.
 */
function useCi(...reports: Report[]) {
  const runs: unknown[] = [];
  use(
    http.post('https://ci.test/runs', async ({ request }) => {
      runs.push(await request.json());
      return HttpResponse.json(reports[Math.min(runs.length, reports.length) - 1]);
    }),
  );
  return runs;
}

const runTestsTool = () =>
  tool({
    description: 'Run a test suite in CI',
    inputSchema: z.object({ suite: z.string() }),
    execute: async (input) => (await callService('POST', 'https://ci.test/runs', input)) as Report,
  });

const failedRun = (report: Report): CheckFailure | undefined =>
  report.status === 'FAIL' ? { message: `tests failed: ${report.signature}` } : undefined;

const suite = { suite: 'checkout' };

describe.each([
  ['chat', chat],
  ['responses', responses],
])('check(result, input) through generateText (%s)', (_api, model) => {
  it('a FAIL report is a VALIDATION failure: repaired twice, then poison; the loop stops and the suite ran 3 times', async () => {
    const runs = useCi(failing);
    provider.reset([
      toolCall('run_tests', suite),
      toolCall('run_tests', suite),
      toolCall('run_tests', suite),
      toolCall('run_tests', suite), // never asked for: the loop stopped
      text('never asked'),
    ]);
    const recovery = createRecovery({ runId: 'run-c1' });
    const result = await generateText({
      model: model(),
      prompt: 'Make the checkout tests pass',
      tools: recovery.tools(
        { run_tests: runTestsTool() },
        { run_tests: { sideEffects: false, check: failedRun } },
      ),
      stopWhen: [isStepCount(8), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });

    expect(runs).toEqual([suite, suite, suite]);
    expect(result.steps).toHaveLength(3);
    expect(provider.requests).toHaveLength(3);
    expect(provider.remaining()).toBe(2);
    // The model read the first two; the third ended the loop, so it is in the last step.
    const [first, second] = provider.toolResults().map((r) => readContract(r.output));
    const third = failureIn(result.steps[2]).contract;
    expect(first).toMatchObject({
      status: 'FAILED',
      failure_class: 'VALIDATION',
      recommended_recovery: 'REPAIR',
      retry_same_action: false,
      code: 'CHECK_FAILED',
      tool: 'run_tests',
      repairs_remaining: 1,
    });
    // The guidance says the call ran and its result failed (not "your arguments were wrong").
    expect(first!.guidance).toBe(
      'run_tests ran, and its result says it did not do the job (CHECK_FAILED). Change what produced that result before calling run_tests again; the same call will give the same result.',
    );
    // The signature reaches the model as quoted data, so it can fix the right thing.
    expect(first!.error_detail).toContain('AssertionError at checkout.test.ts:12');
    expect(second).toMatchObject({ recommended_recovery: 'REPAIR', repairs_remaining: 0 });
    expect(third).toMatchObject({
      failure_class: 'VALIDATION',
      recommended_recovery: 'ABORT',
      retry_same_action: false,
      code: 'POISON',
    });
    expect(third.guidance).toContain('failed the same way after the repair budget was spent');
    // The repair guidance also went into the next request's system text, through prepareStep.
    expect(instructionsSent(provider, 1)).toContain(
      '[recourse] run_tests ran, and its result says it did not do the job (CHECK_FAILED).',
    );
    expect(recovery.outcome()).toMatchObject({ status: 'FAILED', reason: 'POISON' });
    // The result itself never reached the model as a success.
    expect(result.steps[0]!.toolResults[0]!.output).not.toHaveProperty('status', 'FAIL');
  });

  it('without stopWhen, a fourth identical call is answered without running the suite', async () => {
    const runs = useCi(failing);
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

  it("the check's own code names the failure; a different signature is a new failure, not poison; a PASS goes through", async () => {
    const runs = useCi(
      failing,
      { status: 'FAIL', signature: 'TypeError: cart is undefined in cart.test.ts' },
      { status: 'PASS' },
    );
    provider.reset([
      toolCall('run_tests', suite),
      toolCall('run_tests', suite),
      toolCall('run_tests', suite),
      text('green'),
    ]);
    const checked: unknown[] = [];
    const recovery = createRecovery({
      runId: 'run-c2',
      policies: {
        run_tests: {
          sideEffects: false,
          check: (report: Report, input: { suite: string }) => {
            checked.push({ report: report.status, input });
            return report.status === 'FAIL'
              ? { message: `tests failed: ${report.signature}`, code: 'TESTS_FAILED' }
              : undefined;
          },
        },
      },
    });
    const result = await generateText({
      model: model(),
      prompt: 'Make the checkout tests pass',
      tools: recovery.tools({ run_tests: runTestsTool() }),
      stopWhen: [isStepCount(8), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });

    expect(runs).toHaveLength(3);
    expect(checked).toEqual([
      { report: 'FAIL', input: suite },
      { report: 'FAIL', input: suite },
      { report: 'PASS', input: suite },
    ]);
    const outputs = provider.toolResults().map((r) => r.output);
    const contracts = outputs.slice(0, 2).map(readContract);
    expect(contracts).toEqual([
      expect.objectContaining({ code: 'TESTS_FAILED', recommended_recovery: 'REPAIR' }),
      // Another signature: its own fingerprint, with its own repair budget.
      expect.objectContaining({
        code: 'TESTS_FAILED',
        recommended_recovery: 'REPAIR',
        repairs_remaining: 1,
      }),
    ]);
    expect(contracts[0]!.guidance).toContain('(TESTS_FAILED)');
    expect(JSON.parse(outputs[2]!)).toEqual({ status: 'PASS' });
    expect(result.text).toBe('green');
    expect(recovery.outcome()).toMatchObject({ status: 'COMPLETED', recoveries: [] });
  });

  it('a check that throws counts as a failure, and towards poison: the model never gets the value', async () => {
    const runs = useCi({ status: 'PASS' });
    provider.reset([
      toolCall('run_tests', suite),
      toolCall('run_tests', suite),
      toolCall('run_tests', suite),
      text('never asked'),
    ]);
    const recovery = createRecovery({
      runId: 'run-c3',
      policies: {
        run_tests: {
          sideEffects: false,
          check: (report: Report): CheckFailure | undefined => {
            if (report.signature === undefined) throw new Error('report has no signature field');
            return undefined;
          },
        },
      },
    });
    const result = await generateText({
      model: model(),
      prompt: 'Run the checkout tests',
      tools: recovery.tools({ run_tests: runTestsTool() }),
      stopWhen: [isStepCount(6), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });

    expect(runs).toHaveLength(3);
    const outputs = provider.toolResults().map((r) => r.output);
    // An error the classifier does not recognise, from a read: PERMANENT, so a new plan.
    expect(readContract(outputs[0]!)).toMatchObject({
      status: 'FAILED',
      failure_class: 'PERMANENT',
      recommended_recovery: 'REPLAN',
      retry_same_action: false,
      tool: 'run_tests',
      error_detail: '«report has no signature field»',
    });
    expect(outputs.map((output) => JSON.parse(output))).not.toContainEqual({ status: 'PASS' });
    expect(failureIn(result.steps[2]).contract).toMatchObject({
      recommended_recovery: 'ABORT',
      code: 'POISON',
    });
    expect(recovery.outcome()).toMatchObject({ status: 'FAILED', reason: 'POISON' });
  });

  it('failureClass TRANSIENT: a PENDING report is polled again inside the call; the model sees only the final one', async () => {
    const runs = useCi({ status: 'PENDING' }, { status: 'PENDING' }, { status: 'PASS' });
    provider.reset([toolCall('run_tests', suite), text('green')]);
    const recovery = createRecovery({
      runId: 'run-c4',
      retry: { baseDelayMs: 0 },
      policies: {
        run_tests: {
          sideEffects: false,
          check: (report: Report) =>
            report.status === 'PENDING'
              ? { message: 'the run is still pending', code: 'PENDING', failureClass: 'TRANSIENT' }
              : undefined,
        },
      },
    });
    await generateText({
      model: model(),
      prompt: 'Run the checkout tests',
      tools: recovery.tools({ run_tests: runTestsTool() }),
      stopWhen: [isStepCount(4), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });

    expect(runs).toHaveLength(3);
    expect(provider.toolResults().map((r) => JSON.parse(r.output))).toEqual([{ status: 'PASS' }]);
    expect(recovery.outcome()).toMatchObject({
      status: 'COMPLETED',
      recoveries: [
        {
          tool: 'run_tests',
          failure_class: 'TRANSIENT',
          code: 'PENDING',
          action: 'RETRY',
          attempts: 3,
        },
      ],
    });
  });

  it("the check's message is redacted like an error's: a secret in the report never reaches the model", async () => {
    const token = 'ghp_0123456789abcdefghijABCDEFGHIJ012345';
    useCi({ status: 'FAIL', signature: `401 from api.github.com with token ${token}` });
    provider.reset([toolCall('run_tests', suite), text('failed')]);
    const recovery = createRecovery({ runId: 'run-c5' });
    await generateText({
      model: model(),
      prompt: 'Run the checkout tests',
      tools: recovery.tools(
        { run_tests: runTestsTool() },
        { run_tests: { sideEffects: false, check: failedRun } },
      ),
      stopWhen: [isStepCount(4), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });

    const contract = readContract(provider.toolResults()[0]!.output);
    expect(contract).toMatchObject({ code: 'CHECK_FAILED' });
    expect(contract.error_detail).toContain('401 from api.github.com');
    expect(allBodies(provider)).not.toContain(token);
  });

  // A `failureClass` outside the six (a JavaScript caller's typo, a value read from a
  // config) is read as the documented default, VALIDATION: the contract never carries it.
  it('a failureClass that is not a failure class never reaches the model as one', async () => {
    useCi(failing);
    provider.reset([toolCall('run_tests', suite), text('failed')]);
    const recovery = createRecovery({ runId: 'run-c6' });
    await generateText({
      model: model(),
      prompt: 'Run the checkout tests',
      tools: recovery.tools(
        { run_tests: runTestsTool() },
        {
          run_tests: {
            sideEffects: false,
            check: (report: Report) =>
              report.status === 'FAIL'
                ? ({ message: 'tests failed', failureClass: 'FATAL' } as unknown as CheckFailure)
                : undefined,
          },
        },
      ),
      stopWhen: [isStepCount(4), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });

    const contract = readContract(provider.toolResults()[0]!.output);
    expect([
      'TRANSIENT',
      'VALIDATION',
      'AUTHORIZATION',
      'STALE_STATE',
      'UNKNOWN_OUTCOME',
      'PERMANENT',
    ]).toContain(contract.failure_class);
  });
});
