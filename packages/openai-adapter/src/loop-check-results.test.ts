// The shared check-results suite (`@recourse/core/testing`) through the real `openai` client
// against a scripted provider, in every loop mode.
import { type CiReport, describeCheckResults } from '@recourse/core/testing';
import {
  callService,
  createCiService,
  scriptedProviderServer,
  text,
  toolCall,
} from '@recourse/testing';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { z } from 'zod';
import { createRecovery } from './index.js';
import {
  contractFor,
  createClient,
  guidanceSent,
  modes,
  outputFor,
  runLoop,
  unansweredInRun,
} from './test-support/harness.js';

const running = scriptedProviderServer();
const { provider } = running;
beforeAll(running.start);
afterAll(running.stop);
beforeEach(() => running.reset());

describeCheckResults('check(result, input) in the loop ($api, stream: $stream)', modes, (mode) => ({
  async run(plan) {
    const ci = createCiService(plan.reports);
    running.server.use(ci.handler);
    provider.reset([
      ...Array.from({ length: plan.calls }, () => toolCall('run_tests', { suite: 'checkout' })),
      text(plan.answer),
    ]);
    const recovery = createRecovery({
      runId: 'run-oc',
      ...(plan.retry ? { retry: plan.retry } : {}),
    });
    const tools = recovery.tools({
      run_tests: {
        description: 'Run a test suite in CI',
        inputSchema: z.object({ suite: z.string() }),
        execute: async (input) =>
          (await callService('POST', 'https://ci.test/runs', input)) as CiReport,
        policy: { sideEffects: false, check: plan.check },
      },
    });
    const client = createClient(provider);
    const result = await runLoop(
      recovery,
      client,
      mode,
      tools,
      'Make the tests pass',
      plan.maxSteps,
    );
    const output = (index: number) => outputFor(result.conversation, `call_${index + 1}`);
    return {
      runs: ci.runs,
      steps: result.steps,
      requests: provider.requests.length,
      remaining: provider.remaining(),
      output,
      contract: (index) =>
        contractFor(result.conversation, `call_${index + 1}`) as unknown as Record<string, unknown>,
      value: (index) => JSON.parse(output(index)) as unknown,
      guidance: (index) => guidanceSent(provider, index),
      requestBodies: provider.requests.map((request) => request.rawBody),
      outcome: result.outcome,
      text: result.text,
      unanswered: unansweredInRun(provider, result),
    };
  },
}));
