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
const requests: string[] = [];
const ciRuns: unknown[] = [];
beforeAll(() => {
  running = startProviderServer(provider);
  // An observability backend and a CI service, over HTTP.
  running.server.use(
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
    http.post('https://ci.test/runs', async ({ request }) => {
      const input = (await request.json()) as { suite: string; serial?: boolean };
      ciRuns.push(input);
      // A shared fixture makes the parallel run fail the same way every time.
      return HttpResponse.json(
        input.serial
          ? { status: 'PASS' }
          : { status: 'FAIL', signature: 'AssertionError at checkout.test.ts:12' },
      );
    }),
  );
});
afterAll(() => running.close());
beforeEach(() => {
  provider.reset();
  requests.length = 0;
  ciRuns.length = 0;
});

function incidentLoop(options: Partial<OpenAIRecoveryOptions> = {}) {
  const recovery = createRecovery({ runId: 'run-op', ...options });
  const fixtureReads: string[] = [];
  const tools = recovery.tools({
    find_deployments: {
      description: 'Deployments of a service since a time',
      inputSchema: z.object({ service: z.string(), since: z.string() }),
      execute: async ({ service }) =>
        (await callService('GET', `https://obs.test/deployments?service=${service}`)) as {
          deployments: unknown[];
        },
      policy: {
        sideEffects: false,
        // An empty answer disproves the plan's hypothesis: no retry or repair changes it.
        check: (result, input) =>
          result.deployments.length === 0
            ? {
                message: `no deployment of ${input.service} since ${input.since}`,
                code: 'HYPOTHESIS_DISPROVED',
                failureClass: 'PERMANENT',
              }
            : undefined,
      },
    },
    get_dashboard: {
      inputSchema: z.object({ uid: z.string() }),
      execute: async ({ uid }) => callService('GET', `https://obs.test/dashboards/${uid}`),
      policy: { sideEffects: false },
    },
    query_metrics: {
      inputSchema: z.object({ q: z.string() }),
      execute: async ({ q }) => callService('GET', `https://obs.test/metrics?q=${q}`),
      policy: { sideEffects: false },
    },
    run_tests: {
      inputSchema: z.object({ suite: z.string(), serial: z.boolean().nullable() }),
      execute: async (input) =>
        (await callService('POST', 'https://ci.test/runs', input)) as {
          status: string;
          signature?: string;
        },
      policy: {
        sideEffects: false,
        check: (report) =>
          report.status === 'FAIL'
            ? { message: `tests failed: ${report.signature}`, code: 'TESTS_FAILED' }
            : undefined,
      },
    },
    read_fixture: {
      inputSchema: z.object({ name: z.string() }),
      execute: ({ name }) => {
        fixtureReads.push(name);
        return { name, shared: true };
      },
      policy: { sideEffects: false },
    },
  });
  return { recovery, tools, fixtureReads };
}

describe.each(modes)('plan versions in the loop ($api, stream: $stream)', (mode) => {
  const run = (setup: ReturnType<typeof incidentLoop>, prompt: string, maxSteps = 8) =>
    runLoop(setup.recovery, createClient(provider), mode, setup.tools, prompt, maxSteps);

  it('a PERMANENT check result invalidates plan v1; the next request says "make plan v2"; the run completes another way', async () => {
    provider.reset([
      toolCall('find_deployments', { service: 'checkout', since: '13:30' }),
      toolCall('query_metrics', { q: 'db_pool_in_use' }),
      text('The database pool is exhausted.'),
    ]);
    const result = await run(incidentLoop(), 'Why is checkout slow?');

    expect(requests).toEqual(['deployments checkout', 'metrics db_pool_in_use']);
    const contract = contractFor(result.conversation, 'call_1');
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
    // What the provider received: the guidance rides on the request after the failure.
    expect(guidanceSent(provider, 0)).not.toContain('Plan v');
    expect(guidanceSent(provider, 1)).toContain(
      'Replan: plan v1 invalidated by find_deployments HYPOTHESIS_DISPROVED; make plan v2',
    );
    if (mode.api === 'responses') expect(guidanceSent(provider, 2)).not.toContain('Plan v');
    expect(result.text).toBe('The database pool is exhausted.');
    expect(result.outcome.status).toBe('COMPLETED');
    expect(result.outcome.plan).toEqual({
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
    provider.reset([
      toolCall('get_dashboard', { uid: 'latency' }),
      toolCall('get_dashboard', { uid: 'checkout-latency' }),
      toolCall('query_metrics', { q: 'p99_latency' }),
      text('p99 is high'),
    ]);
    const result = await run(incidentLoop(), 'How is checkout latency?');

    expect(requests).toEqual([
      'dashboard latency',
      'dashboard checkout-latency',
      'metrics p99_latency',
    ]);
    expect(contractFor(result.conversation, 'call_1')).toMatchObject({
      failure_class: 'PERMANENT',
      recommended_recovery: 'REPLAN',
      code: 'NOT_FOUND',
      invalidated_plan: 1,
      plan_version: 2,
    });
    expect(contractFor(result.conversation, 'call_2')).toMatchObject({
      code: 'NOT_FOUND',
      invalidated_plan: 2,
      plan_version: 3,
    });
    expect(guidanceSent(provider, 1)).toContain(
      'Replan: plan v1 invalidated by get_dashboard NOT_FOUND; make plan v2',
    );
    expect(guidanceSent(provider, 2)).toContain(
      'Replan: plan v2 invalidated by get_dashboard NOT_FOUND; make plan v3',
    );
    const notFound = (uid: string) => ({
      tool: 'get_dashboard',
      code: 'NOT_FOUND',
      observation: `get_dashboard NOT_FOUND «GET /dashboards/${uid} failed with status 404»`,
    });
    expect(result.outcome).toMatchObject({
      status: 'COMPLETED',
      plan: {
        version: 3,
        history: [
          { version: 1, invalidated_by: notFound('latency') },
          { version: 2, invalidated_by: notFound('checkout-latency') },
        ],
      },
    });
  });

  it("onPoison 'replan': the poison step opens plan v2 and the loop goes on; the quarantined call is refused before it runs, other calls run", async () => {
    const checkout = { suite: 'checkout', serial: null };
    const serial = { suite: 'checkout', serial: true };
    provider.reset([
      toolCall('run_tests', checkout),
      toolCall('run_tests', checkout),
      toolCall('run_tests', checkout), // poison: quarantined, plan v2
      toolCall('run_tests', checkout), // refused before it runs
      [toolCall('read_fixture', { name: 'db' }), toolCall('run_tests', serial)],
      text('green when run serially'),
    ]);
    const setup = incidentLoop({ onPoison: 'replan' });
    const result = await run(setup, 'Make the checkout tests pass', 10);

    expect(provider.requests).toHaveLength(6); // the loop ran to the end of the script
    expect(unansweredInRun(provider, result)).toEqual([]);
    expect(ciRuns).toEqual([checkout, checkout, checkout, serial]);
    expect(setup.fixtureReads).toEqual(['db']);
    const poison = contractFor(result.conversation, 'call_3');
    expect(poison).toMatchObject({
      failure_class: 'VALIDATION',
      recommended_recovery: 'REPLAN',
      retry_same_action: false,
      code: 'POISON',
      invalidated_plan: 1,
      plan_version: 2,
    });
    expect(poison.guidance).toContain('this action is quarantined');
    expect(guidanceSent(provider, 3)).toContain(
      'Replan: plan v1 invalidated by run_tests TESTS_FAILED; make plan v2',
    );
    const refused = contractFor(result.conversation, 'call_4');
    expect(refused).toMatchObject({ code: 'POISON', recommended_recovery: 'REPLAN' });
    expect(refused).not.toHaveProperty('plan_version'); // a refusal opens no new plan
    expect(JSON.parse(outputFor(result.conversation, 'call_5'))).toEqual({
      name: 'db',
      shared: true,
    });
    expect(JSON.parse(outputFor(result.conversation, 'call_6'))).toEqual({ status: 'PASS' });
    expect(result.outcome).toMatchObject({
      status: 'COMPLETED',
      plan: {
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
      },
    });
    expect(result.outcome.plan.history).toHaveLength(1);
  });
});
