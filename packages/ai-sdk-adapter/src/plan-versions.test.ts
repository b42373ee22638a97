import { createRecovery } from '@recourse/ai-sdk';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, tool } from 'ai';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  callService,
  instructionsSent,
  readContract,
  useScriptedProvider,
} from '../test-support/harness.js';

const { provider, chat, responses, use } = useScriptedProvider();

/** An observability backend over HTTP: deployments, dashboards and metric queries. */
function useObservability() {
  const requests: string[] = [];
  use(
    http.get('https://obs.test/deployments', ({ request }) => {
      requests.push(`deployments ${new URL(request.url).searchParams.get('service')}`);
      return HttpResponse.json({ deployments: [] });
    }),
    http.get('https://obs.test/dashboards/:uid', ({ params }) => {
      requests.push(`dashboard ${params.uid}`);
      return HttpResponse.json({ message: 'Dashboard not found' }, { status: 404 });
    }),
    http.get('https://obs.test/metrics', ({ request }) => {
      requests.push(`metrics ${new URL(request.url).searchParams.get('q')}`);
      return HttpResponse.json({ value: 0.98 });
    }),
  );
  return requests;
}

function incidentTools() {
  return {
    find_deployments: tool({
      description: 'Deployments of a service since a time',
      inputSchema: z.object({ service: z.string(), since: z.string() }),
      execute: async ({ service }) =>
        (await callService('GET', `https://obs.test/deployments?service=${service}`)) as {
          deployments: unknown[];
        },
    }),
    get_dashboard: tool({
      description: 'Read a dashboard',
      inputSchema: z.object({ uid: z.string() }),
      execute: async ({ uid }) => callService('GET', `https://obs.test/dashboards/${uid}`),
    }),
    query_metrics: tool({
      description: 'Query a metric',
      inputSchema: z.object({ q: z.string() }),
      execute: async ({ q }) => callService('GET', `https://obs.test/metrics?q=${q}`),
    }),
  };
}

const reads = {
  find_deployments: {
    sideEffects: false,
    // An empty answer disproves the plan's hypothesis: no retry or repair can change it.
    check: (result: { deployments: unknown[] }, input: { service: string; since: string }) =>
      result.deployments.length === 0
        ? {
            message: `no deployment of ${input.service} since ${input.since}`,
            code: 'HYPOTHESIS_DISPROVED',
            failureClass: 'PERMANENT' as const,
          }
        : undefined,
  },
  get_dashboard: { sideEffects: false },
  query_metrics: { sideEffects: false },
};

describe.each([
  ['chat', chat],
  ['responses', responses],
])('plan versions through generateText (%s)', (_api, model) => {
  it('a PERMANENT check result invalidates plan v1; the model is told to make plan v2 and completes another way', async () => {
    const requests = useObservability();
    provider.reset([
      toolCall('find_deployments', { service: 'checkout', since: '13:30' }),
      toolCall('query_metrics', { q: 'db_pool_in_use' }),
      text('The database pool is exhausted.'),
    ]);
    const recovery = createRecovery({ runId: 'run-pv1', policies: reads });
    const result = await generateText({
      model: model(),
      prompt: 'Why is checkout slow?',
      tools: recovery.tools(incidentTools()),
      stopWhen: [isStepCount(6), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });

    expect(requests).toEqual(['deployments checkout', 'metrics db_pool_in_use']);
    const contract = readContract(provider.toolResults()[0]!.output);
    expect(contract).toMatchObject({
      failure_class: 'PERMANENT',
      recommended_recovery: 'REPLAN',
      retry_same_action: false,
      code: 'HYPOTHESIS_DISPROVED',
      invalidated_plan: 1,
      plan_version: 2,
    });
    expect(contract.guidance).toBe(
      'find_deployments cannot succeed as asked. Replan: plan v1 invalidated by find_deployments HYPOTHESIS_DISPROVED; make plan v2. Change the plan; do not repeat the same call.',
    );
    // What the model received on its next request: prepareStep put it there, once.
    expect(instructionsSent(provider, 0)).not.toContain('Plan v');
    expect(instructionsSent(provider, 1)).toContain(
      '[recourse] find_deployments cannot succeed as asked. Replan: plan v1 invalidated by find_deployments HYPOTHESIS_DISPROVED; make plan v2.',
    );
    expect(instructionsSent(provider, 2)).not.toContain('Plan v');
    expect(result.text).toBe('The database pool is exhausted.');
    const outcome = recovery.outcome();
    expect(outcome.status).toBe('COMPLETED');
    expect(outcome.completed_steps).toEqual(['query_metrics']);
    expect(outcome.plan).toEqual({
      version: 2,
      history: [
        {
          version: 1,
          invalidated_by: {
            tool: 'find_deployments',
            code: 'HYPOTHESIS_DISPROVED',
            observation:
              'find_deployments HYPOTHESIS_DISPROVED «no deployment of checkout since 13:30»',
          },
        },
      ],
    });
  });

  it('each 404 from a tool closes one plan version: v1, then v2; plan v3 completes', async () => {
    const requests = useObservability();
    provider.reset([
      toolCall('get_dashboard', { uid: 'latency' }),
      toolCall('get_dashboard', { uid: 'checkout-latency' }),
      toolCall('query_metrics', { q: 'p99_latency' }),
      text('p99 is high'),
    ]);
    const recovery = createRecovery({ runId: 'run-pv2', policies: reads });
    await generateText({
      model: model(),
      prompt: 'How is checkout latency?',
      tools: recovery.tools(incidentTools()),
      stopWhen: [isStepCount(6), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });

    expect(requests).toEqual([
      'dashboard latency',
      'dashboard checkout-latency',
      'metrics p99_latency',
    ]);
    const [first, second] = provider.toolResults().map((r) => readContract(r.output));
    expect(first).toMatchObject({
      failure_class: 'PERMANENT',
      recommended_recovery: 'REPLAN',
      code: 'NOT_FOUND',
      invalidated_plan: 1,
      plan_version: 2,
    });
    expect(second).toMatchObject({ code: 'NOT_FOUND', invalidated_plan: 2, plan_version: 3 });
    expect(instructionsSent(provider, 1)).toContain(
      'Replan: plan v1 invalidated by get_dashboard NOT_FOUND; make plan v2',
    );
    expect(instructionsSent(provider, 2)).toContain(
      'Replan: plan v2 invalidated by get_dashboard NOT_FOUND; make plan v3',
    );
    expect(instructionsSent(provider, 2)).not.toContain('make plan v2');
    const outcome = recovery.outcome();
    expect(outcome.status).toBe('COMPLETED');
    const notFound = (uid: string) => ({
      tool: 'get_dashboard',
      code: 'NOT_FOUND',
      observation: `get_dashboard NOT_FOUND «GET /dashboards/${uid} failed with status 404»`,
    });
    expect(outcome.plan).toEqual({
      version: 3,
      history: [
        { version: 1, invalidated_by: notFound('latency') },
        { version: 2, invalidated_by: notFound('checkout-latency') },
      ],
    });
  });

  it("onPoison 'replan': the poison step opens plan v2 instead of stopping; the quarantined call is refused before it runs, other calls run", async () => {
    const ciRuns: unknown[] = [];
    use(
      http.post('https://ci.test/runs', async ({ request }) => {
        const input = (await request.json()) as { suite: string; serial?: boolean };
        ciRuns.push(input);
        // The shared fixture makes the parallel run fail the same way every time.
        return HttpResponse.json(
          input.serial
            ? { status: 'PASS' }
            : { status: 'FAIL', signature: 'AssertionError at checkout.test.ts:12' },
        );
      }),
    );
    const fixtureReads: string[] = [];
    const checkout = { suite: 'checkout' };
    provider.reset([
      toolCall('run_tests', checkout),
      toolCall('run_tests', checkout),
      toolCall('run_tests', checkout), // poison: quarantined, plan v2
      toolCall('run_tests', checkout), // refused before it runs
      [
        toolCall('read_fixture', { name: 'db' }),
        toolCall('run_tests', { ...checkout, serial: true }),
      ],
      text('green when run serially'),
    ]);
    const recovery = createRecovery({
      runId: 'run-pv3',
      onPoison: 'replan',
      policies: {
        run_tests: {
          sideEffects: false,
          check: (report: { status: string; signature?: string }) =>
            report.status === 'FAIL'
              ? { message: `tests failed: ${report.signature}`, code: 'TESTS_FAILED' }
              : undefined,
        },
        read_fixture: { sideEffects: false },
      },
    });
    await generateText({
      model: model(),
      prompt: 'Make the checkout tests pass',
      tools: recovery.tools({
        run_tests: tool({
          inputSchema: z.object({ suite: z.string(), serial: z.boolean().optional() }),
          execute: async (input) => callService('POST', 'https://ci.test/runs', input),
        }),
        read_fixture: tool({
          inputSchema: z.object({ name: z.string() }),
          execute: async ({ name }) => {
            fixtureReads.push(name);
            return { name, shared: true };
          },
        }),
      }),
      stopWhen: [isStepCount(10), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });

    // The loop went on to the end of the script: the poison step did not stop it.
    expect(provider.requests).toHaveLength(6);
    expect(ciRuns).toEqual([checkout, checkout, checkout, { ...checkout, serial: true }]);
    expect(fixtureReads).toEqual(['db']);
    const outputs = provider.toolResults().map((r) => r.output);
    const poison = readContract(outputs[2]!);
    expect(poison).toMatchObject({
      failure_class: 'VALIDATION',
      recommended_recovery: 'REPLAN',
      retry_same_action: false,
      code: 'POISON',
      invalidated_plan: 1,
      plan_version: 2,
    });
    expect(poison.guidance).toContain('this action is quarantined');
    expect(poison.guidance).toContain(
      'Replan: plan v1 invalidated by run_tests TESTS_FAILED; make plan v2',
    );
    expect(instructionsSent(provider, 3)).toContain(
      'Replan: plan v1 invalidated by run_tests TESTS_FAILED; make plan v2',
    );
    // The refused repeat is told it is quarantined; it does not open another plan.
    const refused = readContract(outputs[3]!);
    expect(refused).toMatchObject({ code: 'POISON', recommended_recovery: 'REPLAN' });
    expect(refused).not.toHaveProperty('plan_version');
    expect(JSON.parse(outputs[4]!)).toEqual({ name: 'db', shared: true });
    expect(JSON.parse(outputs[5]!)).toEqual({ status: 'PASS' });
    const outcome = recovery.outcome();
    expect(outcome.plan).toEqual({
      version: 2,
      history: [
        {
          version: 1,
          invalidated_by: {
            tool: 'run_tests',
            code: 'TESTS_FAILED',
            observation:
              'run_tests TESTS_FAILED «tests failed: AssertionError at checkout.test.ts:12»',
          },
        },
      ],
    });
    expect(outcome.status).toBe('COMPLETED');
  });
});
