import type { CheckFailure } from '@recourse/core';
import {
  createScriptedProvider,
  type ProviderServer,
  startProviderServer,
  text,
  toolCall,
} from '@recourse/testing';
import { HttpResponse, http } from 'msw';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRecovery, type OpenAIRecoveryOptions } from './index.js';
import {
  callService,
  contractFor,
  createClient,
  guidanceSent,
  modes,
  outputFor,
  runLoop,
  unansweredInRun,
} from './test-support/harness.js';

const provider = createScriptedProvider();
let running: ProviderServer;
beforeAll(() => {
  running = startProviderServer(provider);
});
afterAll(() => running.close());
beforeEach(() => {
  provider.reset();
  running.server.resetHandlers();
});

interface Report {
  status: 'PASS' | 'FAIL' | 'PENDING';
  signature?: string;
}

const failing: Report = { status: 'FAIL', signature: 'AssertionError at checkout.test.ts:12' };
const suite = { suite: 'checkout' };

/**
 * A CI service over HTTP: each POST /runs is a test run, answered 200 with the next report
 * (the last one again once they run out). Whether the job was done is in the body only.
 */
function useCi(...reports: Report[]) {
  const runs: unknown[] = [];
  running.server.use(
    http.post('https://ci.test/runs', async ({ request }) => {
      runs.push(await request.json());
      return HttpResponse.json(reports[Math.min(runs.length, reports.length) - 1]);
    }),
  );
  return runs;
}

function ciLoop(
  check: (report: Report, input: { suite: string }) => CheckFailure | undefined,
  options: Partial<OpenAIRecoveryOptions> = {},
) {
  const recovery = createRecovery({ runId: 'run-oc', ...options });
  const tools = recovery.tools({
    run_tests: {
      description: 'Run a test suite in CI',
      inputSchema: z.object({ suite: z.string() }),
      execute: async (input) =>
        (await callService('POST', 'https://ci.test/runs', input)) as Report,
      policy: { sideEffects: false, check },
    },
  });
  return { recovery, tools };
}

const failedRun = (report: Report): CheckFailure | undefined =>
  report.status === 'FAIL' ? { message: `tests failed: ${report.signature}` } : undefined;

describe.each(modes)('check(result, input) in the loop ($api, stream: $stream)', (mode) => {
  const run = (setup: ReturnType<typeof ciLoop>, maxSteps = 8) =>
    runLoop(
      setup.recovery,
      createClient(provider),
      mode,
      setup.tools,
      'Make the tests pass',
      maxSteps,
    );

  it('a FAIL report is a VALIDATION failure: repaired twice, then poison; the loop ends and the suite ran 3 times', async () => {
    const runs = useCi(failing);
    provider.reset([
      toolCall('run_tests', suite),
      toolCall('run_tests', suite),
      toolCall('run_tests', suite),
      toolCall('run_tests', suite), // never asked for: the loop ended
      text('never asked'),
    ]);
    const result = await run(ciLoop(failedRun));

    expect(runs).toEqual([suite, suite, suite]);
    expect(result.steps).toBe(3);
    expect(provider.requests).toHaveLength(3);
    expect(provider.remaining()).toBe(2);
    expect(unansweredInRun(provider, result)).toEqual([]);
    const first = contractFor(result.conversation, 'call_1');
    expect(first).toMatchObject({
      status: 'FAILED',
      failure_class: 'VALIDATION',
      recommended_recovery: 'REPAIR',
      retry_same_action: false,
      code: 'CHECK_FAILED',
      tool: 'run_tests',
      repairs_remaining: 1,
    });
    expect(first.guidance).toBe(
      'run_tests ran, and its result says it did not do the job (CHECK_FAILED). Change what produced that result before calling run_tests again; the same call will give the same result.',
    );
    expect(first.error_detail).toContain('AssertionError at checkout.test.ts:12');
    expect(contractFor(result.conversation, 'call_2')).toMatchObject({
      recommended_recovery: 'REPAIR',
      repairs_remaining: 0,
    });
    expect(contractFor(result.conversation, 'call_3')).toMatchObject({
      failure_class: 'VALIDATION',
      recommended_recovery: 'ABORT',
      retry_same_action: false,
      code: 'POISON',
    });
    // The repair guidance went into the next request (instructions, or a system message).
    expect(guidanceSent(provider, 1)).toContain(
      'run_tests ran, and its result says it did not do the job (CHECK_FAILED).',
    );
    expect(result.outcome).toMatchObject({ status: 'FAILED', reason: 'POISON' });
  });

  it("the check's own code names the failure; a different signature is a new failure; a PASS goes through untouched", async () => {
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
    const result = await run(
      ciLoop((report, input) => {
        checked.push({ report: report.status, input });
        return report.status === 'FAIL'
          ? { message: `tests failed: ${report.signature}`, code: 'TESTS_FAILED' }
          : undefined;
      }),
    );

    expect(runs).toHaveLength(3);
    expect(checked).toEqual([
      { report: 'FAIL', input: suite },
      { report: 'FAIL', input: suite },
      { report: 'PASS', input: suite },
    ]);
    for (const id of ['call_1', 'call_2']) {
      expect(contractFor(result.conversation, id)).toMatchObject({
        code: 'TESTS_FAILED',
        recommended_recovery: 'REPAIR',
        repairs_remaining: 1, // each signature has its own repair budget
      });
    }
    expect(JSON.parse(outputFor(result.conversation, 'call_3'))).toEqual({ status: 'PASS' });
    expect(result.text).toBe('green');
    expect(result.outcome).toMatchObject({ status: 'COMPLETED', recoveries: [] });
  });

  it('a check that throws counts as a failure, and towards poison: the model never gets the value', async () => {
    const runs = useCi({ status: 'PASS' });
    provider.reset([
      toolCall('run_tests', suite),
      toolCall('run_tests', suite),
      toolCall('run_tests', suite),
      text('never asked'),
    ]);
    const result = await run(
      ciLoop((report) => {
        if (report.signature === undefined) throw new Error('report has no signature field');
        return undefined;
      }),
    );

    expect(runs).toHaveLength(3);
    // An error the classifier does not recognise, from a read: PERMANENT, so a new plan.
    expect(contractFor(result.conversation, 'call_1')).toMatchObject({
      failure_class: 'PERMANENT',
      recommended_recovery: 'REPLAN',
      error_detail: '«report has no signature field»',
    });
    for (const id of ['call_1', 'call_2', 'call_3'])
      expect(outputFor(result.conversation, id)).not.toContain('"PASS"');
    expect(contractFor(result.conversation, 'call_3')).toMatchObject({ code: 'POISON' });
    expect(result.outcome).toMatchObject({ status: 'FAILED', reason: 'POISON' });
  });

  it('failureClass TRANSIENT: a PENDING report is polled again inside the call; the model sees only the final one', async () => {
    const runs = useCi({ status: 'PENDING' }, { status: 'PENDING' }, { status: 'PASS' });
    provider.reset([toolCall('run_tests', suite), text('green')]);
    const result = await run(
      ciLoop(
        (report) =>
          report.status === 'PENDING'
            ? { message: 'the run is still pending', code: 'PENDING', failureClass: 'TRANSIENT' }
            : undefined,
        { retry: { baseDelayMs: 0 } },
      ),
    );

    expect(runs).toHaveLength(3);
    expect(JSON.parse(outputFor(result.conversation, 'call_1'))).toEqual({ status: 'PASS' });
    expect(result.outcome).toMatchObject({
      status: 'COMPLETED',
      recoveries: [{ tool: 'run_tests', code: 'PENDING', action: 'RETRY', attempts: 3 }],
    });
  });
});
