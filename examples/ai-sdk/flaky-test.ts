import { createRecovery } from '@recourse/ai-sdk';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, tool } from 'ai';
import { z } from 'zod';
import { createExampleModel } from '../shared/model.js';
import { createTrace, type Log, type Observer } from '../shared/trace.js';

/**
 * A coding agent fixing a flaky test. `run_tests` does not throw: it returns FAIL, and the
 * policy's `check` turns that result into a failure. The agent inspects the fixture,
 * patches a timeout, runs the test again: FAIL, same signature; and again: FAIL, same
 * signature. Past the repair budget that is a poison step: the loop does not recover, it
 * thrashes. With `onPoison: 'stop'` the run ends there instead of running the test twenty
 * times. With `onPoison: 'replan'` the hypothesis ("it is timing") is rejected: the same
 * test run stays quarantined (refused when the model asks again), the plan moves to v2, and
 * the agent inspects the shared state, where the cause is: parallel tests share a fixture.
 */
export function runFlakyTestExample(log: Log = console.log, observe?: Observer) {
  return fixFlakyTest('stop', log, observe);
}

export function runFlakyTestReplanExample(log: Log = console.log, observe?: Observer) {
  return fixFlakyTest('replan', log, observe);
}

async function fixFlakyTest(onPoison: 'stop' | 'replan', log: Log, observe?: Observer) {
  const test = 'checkout.spec.ts';
  const testRuns: string[] = [];
  const { model, close, provider } = createExampleModel([
    toolCall('run_tests', { test }), // 1. run test → FAIL
    toolCall('read_file', { path: 'test/fixtures/orders.ts' }), // 2. inspect fixture
    toolCall('patch_file', { path: 'test/fixtures/orders.ts', patch: 'timeout 500 → 2000' }), // 3. patch timing
    toolCall('run_tests', { test }), // 4. FAIL, same signature
    toolCall('run_tests', { test }), // 5. FAIL, same signature: poison
    // With 'replan' only: the model asks once more (refused), then follows the new plan.
    toolCall('run_tests', { test }),
    toolCall('inspect_shared_state', { fixture: 'orders' }),
    toolCall('run_tests', { test, parallel: false }),
    text(
      'The timing patch was not the cause: the orders fixture is shared by parallel workers. Run in isolation the test passes; the fixture needs a per-worker table.',
    ),
  ]);
  const trace = createTrace(log, observe, { guidance: onPoison === 'replan' });
  const recovery = createRecovery({
    runId: `run-flaky-${onPoison}`,
    onEvent: trace.onEvent,
    onPoison,
    defaultPolicy: { sideEffects: false },
    policies: {
      patch_file: { sideEffects: true },
      run_tests: {
        sideEffects: false,
        check: (result: { status: string; signature?: string }) =>
          result.status === 'FAIL'
            ? { message: `FAIL ${result.signature}`, code: 'TEST_FAILED' }
            : undefined,
      },
    },
  });
  try {
    await generateText({
      model,
      prompt: `Fix the flaky test ${test}.`,
      tools: recovery.tools({
        run_tests: tool({
          description: 'Run one test file; parallel (default true) runs it beside the others',
          inputSchema: z.object({ test: z.string(), parallel: z.boolean().optional() }),
          execute: async ({ test, parallel = true }) => {
            testRuns.push(parallel ? test : `${test} (serial)`);
            return parallel
              ? { status: 'FAIL', signature: 'orders.total expected 3 received 5 (line 42)' }
              : { status: 'PASS' };
          },
        }),
        read_file: tool({
          description: 'Read a file of the repository',
          inputSchema: z.object({ path: z.string() }),
          execute: async () => 'export const orders = sharedTable("orders", { timeout: 500 });',
        }),
        patch_file: tool({
          description: 'Apply a patch to a file',
          inputSchema: z.object({ path: z.string(), patch: z.string() }),
          execute: async () => 'patched',
        }),
        inspect_shared_state: tool({
          description: 'Show which test workers use a fixture',
          inputSchema: z.object({ fixture: z.string() }),
          execute: async () => ({ table: 'orders', usedBy: ['worker-1', 'worker-2', 'worker-3'] }),
        }),
      }),
      stopWhen: [isStepCount(12), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });
    const outcome = recovery.outcome();
    trace.printOutcome(outcome);
    log(`test runs: ${testRuns.length} (${testRuns.join(', ')})`);
    return { outcome, testRuns, modelRequests: provider?.requests.length };
  } finally {
    close();
  }
}
