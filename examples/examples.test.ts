import { readFileSync } from 'node:fs';
import { type Clock, consoleTraceLegend, type RecoveryEvent } from '@recourse/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runExtractExample } from './ai-sdk/extract.js';
import { runFlakyTestExample, runFlakyTestReplanExample } from './ai-sdk/flaky-test.js';
import { runGeocodeExample } from './ai-sdk/geocode.js';
import { runGithubExample } from './ai-sdk/github.js';
import { runIncidentExample } from './ai-sdk/incident.js';
import { runMergeExample } from './ai-sdk/merge.js';
import { runObservabilityExample } from './ai-sdk/observability.js';
import { runParserFallbackExample } from './ai-sdk/parser-fallback.js';
import { runRefundExample } from './ai-sdk/refund.js';
import { runSagaExample } from './ai-sdk/saga.js';
import { runOpenAIChargeExample } from './openai/charge.js';
import { runOpenAIGithubExample } from './openai/github.js';
import { runOpenAIRefundExample } from './openai/refund.js';
import {
  runAgentsGithubExample,
  runAgentsRefundExample,
  runAgentsRepairExample,
} from './openai-agents/agents-sdk.js';
import { runOtelExample } from './otel/trace.js';

// The examples are the demo; these keep them honest (offline, scripted provider).
const quiet = () => {};

type Example = (
  log: (line: string) => void,
  observe: (event: RecoveryEvent) => void,
) => Promise<unknown>;

/**
 * Each failed step as observed: tool, failure class / code, and the decision taken (with
 * its code where it says more than the action); reconcile answers, refusals of calls that
 * never ran, and compensations.
 */
function recordSteps() {
  const steps: string[] = [];
  const answered = new Set<string>();
  let pending = '';
  const observe = (event: RecoveryEvent) => {
    if (event.type === 'failure.classified') {
      pending = `${event.tool}: ${event.classification.failureClass}/${event.classification.code}`;
    } else if (event.type === 'decision.made') {
      const { action, code } = event.decision;
      steps.push(`${pending} → ${action}${code === action ? '' : ` (${code})`}`);
      answered.add(event.toolCallId);
    } else if (event.type === 'call.blocked') {
      steps.push(`${event.tool}: blocked (${event.reason})`);
      answered.add(event.toolCallId);
    } else if (event.type === 'reconcile.finished') {
      steps.push(`${event.tool}: reconciled (${event.happened ? 'landed' : 'not landed'})`);
    } else if (event.type === 'call.failed' && !answered.has(event.toolCallId)) {
      steps.push(`${event.tool}: refused before it ran (${event.contract.code})`);
    } else if (event.type === 'compensation.finished') {
      steps.push(`${event.tool}: ${event.status}`);
    }
  };
  return { steps, observe };
}

/**
 * A fake clock in which only the backoff delays pass, recorded and never waited. Background
 * sleeps (`unref`: the write's lease ticker) never wake, as the runs end long before them.
 */
function instantClock(): Clock & { sleeps: number[] } {
  const sleeps: number[] = [];
  let now = 0;
  return {
    sleeps,
    now: () => now,
    sleep: (ms, _signal, options) => {
      if (options?.unref) return new Promise<void>(() => {});
      sleeps.push(ms);
      now += ms;
      return Promise.resolve();
    },
  };
}

it("the README's legend is the one the demo prints", () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  expect(readme).toContain(`\n\`\`\`\n${consoleTraceLegend}\n\`\`\`\n`);
});

// The examples reach the real API when OPENAI_API_KEY is set (the demo's choice); their
// tests always run them against the scripted provider, whatever the environment holds.
beforeAll(() => vi.stubEnv('OPENAI_API_KEY', undefined));
afterAll(() => vi.unstubAllEnvs());

describe('examples (offline)', () => {
  it('refund: exactly one refund under one key, although the response was lost and the model asked twice', async () => {
    const { outcome, refunds, requests } = await runRefundExample(quiet);
    expect(refunds).toHaveLength(1);
    expect(requests).toHaveLength(1);
    expect(outcome.status).toBe('COMPLETED');
  });

  it('github: the 403 blocks the run and both bypass routes, which never execute', async () => {
    const { outcome, executed } = await runGithubExample(quiet);
    expect(executed).toEqual(['github_api acme/secret']);
    expect(outcome).toMatchObject({
      status: 'BLOCKED',
      next_possible_action: 'request authorized operator',
    });
    // Two refusals of the shell on the same repository: listed once.
    expect(outcome.blocked).toEqual([
      { tool: 'shell', resource: 'https://github.com/acme/secret', reason: 'DENIED_EARLIER' },
    ]);
  });

  it("github: the trace shows each refused bypass's input, every line under its call id", async () => {
    const lines: string[] = [];
    await runGithubExample((line) => lines.push(line));
    const ansi = new RegExp(`${String.fromCharCode(27)}\\[\\d+m`, 'g');
    const plain = lines.map((line) => line.replace(ansi, ''));
    const refused = (id: string, command: string) => [
      `${id} → shell(${JSON.stringify({ command })})`,
      `${id}   ⛔ refused before it ran: https://github.com/acme/secret (DENIED_EARLIER)`,
    ];
    const clone = refused('call_2', 'git clone git@github.com:acme/secret.git /tmp/secret');
    const curl = refused(
      'call_3',
      "bash -c 'curl -s https://api.github.com/repos/ACME/Secret/contents/README.md'",
    );
    for (const pair of [clone, curl]) {
      const at = plain.indexOf(pair[0] as string);
      expect(at).toBeGreaterThan(-1);
      expect(plain.slice(at + 1)).toContain(pair[1]);
    }
  });

  it('extract: two repairs, then poison stops the loop', async () => {
    const { outcome, calls, modelRequests } = await runExtractExample(quiet);
    expect(calls).toBe(3);
    expect(modelRequests).toBe(3);
    expect(outcome).toMatchObject({ status: 'FAILED', reason: 'POISON' });
  });

  it('merge: re-observe after a 412, then merge at the new head', async () => {
    const { outcome, merges } = await runMergeExample(quiet);
    expect(merges).toEqual(['a1b2c3', 'd4e5f6']);
    expect(outcome.status).toBe('COMPLETED');
  });

  it('refund through the OpenAI SDK: one refund', async () => {
    const { outcome, refunds } = await runOpenAIRefundExample(quiet);
    expect(refunds).toHaveLength(1);
    expect(outcome.status).toBe('COMPLETED');
  });

  it('github through the OpenAI SDK: blocked, shell never executed', async () => {
    const { outcome, executed } = await runOpenAIGithubExample(quiet);
    expect(executed).toEqual(['github_api acme/secret']);
    expect(outcome.status).toBe('BLOCKED');
  });

  it('the OpenAI Agents SDK examples: one refund, the bypass blocked, the 422 repaired', async () => {
    const undeclared: string[] = [];
    const observe = (event: RecoveryEvent) => {
      if (event.type === 'policy.undeclared') undeclared.push(event.tool);
    };
    const refund = await runAgentsRefundExample(quiet, observe);
    expect(refund.refunds).toHaveLength(1);
    expect(refund.outcome.status).toBe('COMPLETED');
    const github = await runAgentsGithubExample(quiet, observe);
    expect(github.executed).toEqual(['github_api acme/secret']);
    expect(github.outcome.status).toBe('BLOCKED');
    expect(github.finalOutput).toBe(github.outcome.summary);
    const repair = await runAgentsRepairExample(quiet, observe);
    expect(repair.created).toEqual(['Ada Lovelace']);
    expect(repair.outcome.status).toBe('COMPLETED');
    expect(undeclared).toEqual([]);
  });

  it('the OpenAI SDK examples declare sideEffects on every tool too', async () => {
    const undeclared: string[] = [];
    const observe = (event: RecoveryEvent) => {
      if (event.type === 'policy.undeclared') undeclared.push(event.tool);
    };
    await runOpenAIRefundExample(quiet, observe);
    await runOpenAIGithubExample(quiet, observe);
    expect(undeclared).toEqual([]);
  });

  it('otel: recourse spans under the AI SDK execute_tool spans; inference spans through the OpenAI SDK', async () => {
    const lines: string[] = [];
    const { outcomes, aiSdkSpans, openaiSpans } = await runOtelExample((line) => lines.push(line));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['COMPLETED', 'COMPLETED']);
    const byId = new Map(aiSdkSpans.map((span) => [span.spanContext().spanId, span]));
    const ours = aiSdkSpans.filter((span) => span.instrumentationScope.name === '@recourse/core');
    expect(ours.map((span) => span.name)).toEqual([
      'execute_tool get_payment',
      'execute_tool refund_payment',
    ]);
    for (const span of ours) {
      const parent = byId.get(span.parentSpanContext?.spanId ?? '');
      expect(parent?.name).toBe(span.name);
      expect(parent?.instrumentationScope.name).toBe('gen_ai');
    }
    expect(ours.map((span) => span.attributes['recourse.recovery.action'])).toEqual([
      'RETRY',
      'RECONCILE',
    ]);
    expect(
      openaiSpans
        .filter((span) => span.instrumentationScope.name === '@recourse/core')
        .map((span) => span.name)
        .sort(),
    ).toEqual(['chat gpt-4o', 'chat gpt-4o', 'execute_tool get_payment']);
    // One short line per span.
    expect(lines).toHaveLength(2 + aiSdkSpans.length + openaiSpans.length);
  });

  it("otel --console: the SDK's ConsoleSpanExporter prints every span, recourse's attributes included", async () => {
    const printed: Record<string, unknown>[] = [];
    const dir = vi.spyOn(console, 'dir').mockImplementation((item) => {
      printed.push(item as Record<string, unknown>);
    });
    try {
      const lines: string[] = [];
      const { aiSdkSpans, openaiSpans } = await runOtelExample((line) => lines.push(line), {
        console: true,
      });
      const spans = [...aiSdkSpans, ...openaiSpans];
      // The exporter's own shape: one object per span, the same spans the tree shows.
      expect(printed.map((info) => info.id)).toEqual(
        spans.map((span) => span.spanContext().spanId),
      );
      const refund = printed.find(
        (info) =>
          info.name === 'execute_tool refund_payment' &&
          (info.instrumentationScope as { name: string }).name === '@recourse/core',
      );
      expect(refund?.attributes).toMatchObject({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'refund_payment',
        'recourse.run_id': 'run-otel-1',
        'recourse.attempts': 1,
        'recourse.failure_class': 'UNKNOWN_OUTCOME',
        'recourse.recovery.action': 'RECONCILE',
      });
      expect(lines).toContain('the same spans as a tree:');
      expect(lines).toHaveLength(2 + 2 * 2 + spans.length);
    } finally {
      dir.mockRestore();
    }
  });

  it('flaky: the same FAIL signature three times is poison; the test ran 3 times, not 20', async () => {
    const { outcome, testRuns, modelRequests } = await runFlakyTestExample(quiet);
    expect(testRuns).toEqual(['checkout.spec.ts', 'checkout.spec.ts', 'checkout.spec.ts']);
    expect(modelRequests).toBe(5);
    expect(outcome).toMatchObject({ status: 'FAILED', reason: 'POISON' });
  });

  it('flaky, replanning: the poisoned run stays quarantined; the new plan finds the shared fixture', async () => {
    const { outcome, testRuns } = await runFlakyTestReplanExample(quiet);
    // The fourth request of the same run never executed; the serial run is another input.
    expect(testRuns).toEqual([
      'checkout.spec.ts',
      'checkout.spec.ts',
      'checkout.spec.ts',
      'checkout.spec.ts (serial)',
    ]);
    expect(outcome.status).toBe('COMPLETED');
    // The poison opened plan v2; the refused repeat did not open another.
    expect(outcome.plan.history.map((h) => h.invalidated_by.observation)).toEqual([
      'run_tests TEST_FAILED «FAIL orders.total expected 3 received 5 (line 42)»',
    ]);
  });

  it('incident: plan v1 invalidated by the observation, the model follows plan v2', async () => {
    const { outcome, queries, text } = await runIncidentExample(quiet);
    expect(outcome.plan).toEqual({
      version: 2,
      history: [
        {
          version: 1,
          invalidated_by: {
            tool: 'find_deployments',
            code: 'HYPOTHESIS_DISPROVED',
            observation:
              'find_deployments HYPOTHESIS_DISPROVED «no deployment of checkout since 13:30: the deployment hypothesis is disproved»',
          },
        },
      ],
    });
    expect(queries).toEqual(['deployments checkout', 'metrics db_pool_in_use']);
    expect(text).toContain('database pool is exhausted');
    // The disproved hypothesis was the evidence, and plan v2 completed: the run is COMPLETED.
    expect(outcome).toMatchObject({ status: 'COMPLETED' });
  });

  it('observability: the fallback is explicit PARTIAL_RESULT, for the model and in the outcome', async () => {
    const clock = instantClock();
    const { outcome, apiRequests, told } = await runObservabilityExample(quiet, undefined, clock);
    expect(apiRequests).toBe(3);
    expect(clock.sleeps).toHaveLength(2);
    // Exponential backoff with equal jitter: 100–200 ms, then 400–800 ms.
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(100);
    expect(clock.sleeps[0]).toBeLessThanOrEqual(200);
    expect(clock.sleeps[1]).toBeGreaterThanOrEqual(400);
    expect(clock.sleeps[1]).toBeLessThanOrEqual(800);
    expect(told).toEqual({
      status: 'PARTIAL_RESULT',
      confidence: 'LOW',
      missing_evidence: ['live deployment metrics'],
      result: { snapshot_taken_at: '13:05', p99_ms: 180, error_rate: 0.001 },
    });
    expect(outcome).toMatchObject({
      status: 'PARTIAL_RESULT',
      reason: 'DEGRADED',
      missing_evidence: ['live deployment metrics'],
      confidence: 'LOW',
    });
  });

  it('fallback parser: three invalid samples, then the parser, marked PARTIAL_RESULT', async () => {
    const { outcome, samples, told } = await runParserFallbackExample(
      quiet,
      undefined,
      instantClock(),
    );
    expect(samples).toBe(3);
    expect(told).toEqual({
      status: 'PARTIAL_RESULT',
      confidence: 'LOW',
      missing_evidence: ['alert summary (model extraction failed; fields from the parser)'],
      result: { service: 'checkout-api', severity: 'crit', parser: 'deterministic' },
    });
    expect(outcome).toMatchObject({ status: 'PARTIAL_RESULT', reason: 'DEGRADED' });
  });

  it('saga: the completed writes are undone newest first, once, and the outcome says so', async () => {
    const { outcome, cloud, again } = await runSagaExample(quiet, undefined, instantClock());
    expect(cloud).toEqual([
      'create vm web-7',
      'create dns web-7.example.com',
      'delete dns web-7.example.com',
      'delete vm vm-0af3',
    ]);
    const report = { compensated: ['configure_dns', 'create_vm'], failed: [], not_compensable: [] };
    expect(again).toEqual(report);
    expect(outcome).toMatchObject({ status: 'FAILED', reason: 'ATTEMPTS_EXHAUSTED', ...report });
  });

  it('geocode: the read retried within the call, the write that timed out not re-sent', async () => {
    const clock = instantClock();
    const { outcome, lookups, posted } = await runGeocodeExample(quiet, undefined, clock);
    expect(lookups).toBe(2);
    expect(clock.sleeps).toHaveLength(1);
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(100);
    expect(clock.sleeps[0]).toBeLessThanOrEqual(200);
    expect(posted).toHaveLength(1);
    expect(outcome).toMatchObject({
      status: 'FAILED',
      reason: 'RECONCILE_BY_HAND',
      completed_steps: ['geocode'],
      recoveries: [{ tool: 'geocode', code: 'TIMEOUT', action: 'RETRY', attempts: 2 }],
      needs_reconciliation: [
        { tool: 'post_normalized_address', idempotency_key: posted[0]?.idempotencyKey },
      ],
    });
  });

  it('charge: reconciled before it is re-sent, a 402 never retried, quarantined at the third', async () => {
    const { outcome, charges, requests } = await runOpenAIChargeExample(
      quiet,
      undefined,
      instantClock(),
    );
    expect(charges).toEqual([]);
    expect(requests).toHaveLength(3); // one per model request: none retried by recourse
    expect(new Set(requests).size).toBe(1);
    expect(outcome).toMatchObject({ status: 'FAILED', reason: 'POISON' });
    expect(outcome.failures.map((f) => `${f.code} → ${f.recovery}`)).toEqual([
      'PAYMENT_REQUIRED → REPLAN',
      'PAYMENT_REQUIRED → REPLAN',
      'POISON → ABORT',
    ]);
  });

  // The seed's test plan: a fixture for every step of a job, with real observed values.
  const observed: [string, Example, string[]][] = [
    [
      'refund',
      runRefundExample,
      [
        'refund_payment: UNKNOWN_OUTCOME/TIMEOUT → RECONCILE',
        'refund_payment: reconciled (landed)',
      ],
    ],
    [
      'github',
      runGithubExample,
      [
        'github_api: AUTHORIZATION/FORBIDDEN → ABORT (AUTHORIZATION_DENIED)',
        'shell: blocked (DENIED_EARLIER)',
        'shell: blocked (DENIED_EARLIER)',
      ],
    ],
    [
      'extract',
      runExtractExample,
      [
        'save_invoice: VALIDATION/INVALID_INPUT → REPAIR',
        'save_invoice: VALIDATION/INVALID_INPUT → REPAIR',
        'save_invoice: VALIDATION/INVALID_INPUT → ABORT (POISON)',
      ],
    ],
    ['merge', runMergeExample, ['merge_pull_request: STALE_STATE/PRECONDITION_FAILED → REOBSERVE']],
    [
      'flaky',
      runFlakyTestExample,
      [
        'run_tests: VALIDATION/TEST_FAILED → REPAIR',
        'run_tests: VALIDATION/TEST_FAILED → REPAIR',
        'run_tests: VALIDATION/TEST_FAILED → ABORT (POISON)',
      ],
    ],
    [
      'flaky, replanning',
      runFlakyTestReplanExample,
      [
        'run_tests: VALIDATION/TEST_FAILED → REPAIR',
        'run_tests: VALIDATION/TEST_FAILED → REPAIR',
        'run_tests: VALIDATION/TEST_FAILED → REPLAN (POISON)',
        'run_tests: blocked (POISON)',
      ],
    ],
    ['incident', runIncidentExample, ['find_deployments: PERMANENT/HYPOTHESIS_DISPROVED → REPLAN']],
    [
      'observability',
      (log, observe) => runObservabilityExample(log, observe, instantClock()),
      [
        'deployment_metrics: TRANSIENT/SERVICE_UNAVAILABLE → RETRY',
        'deployment_metrics: TRANSIENT/SERVICE_UNAVAILABLE → RETRY',
        'deployment_metrics: TRANSIENT/SERVICE_UNAVAILABLE → FALLBACK',
      ],
    ],
    [
      'fallback parser',
      (log, observe) => runParserFallbackExample(log, observe, instantClock()),
      [
        'extract_alert: TRANSIENT/INVALID_STRUCTURED_OUTPUT → RETRY',
        'extract_alert: TRANSIENT/INVALID_STRUCTURED_OUTPUT → RETRY',
        'extract_alert: TRANSIENT/INVALID_STRUCTURED_OUTPUT → FALLBACK',
      ],
    ],
    [
      'saga',
      (log, observe) => runSagaExample(log, observe, instantClock()),
      [
        'write_inventory_record: TRANSIENT/SERVICE_UNAVAILABLE → RETRY',
        'write_inventory_record: TRANSIENT/SERVICE_UNAVAILABLE → RETRY',
        'write_inventory_record: TRANSIENT/SERVICE_UNAVAILABLE → ABORT (ATTEMPTS_EXHAUSTED)',
        'configure_dns.compensate: compensated',
        'create_vm.compensate: compensated',
      ],
    ],
    [
      'geocode',
      (log, observe) => runGeocodeExample(log, observe, instantClock()),
      [
        'geocode: TRANSIENT/TIMEOUT → RETRY',
        'post_normalized_address: UNKNOWN_OUTCOME/TIMEOUT → ABORT (RECONCILE_BY_HAND)',
      ],
    ],
    [
      'charge',
      (log, observe) => runOpenAIChargeExample(log, observe, instantClock()),
      [
        'charge_card: UNKNOWN_OUTCOME/TIMEOUT → RECONCILE',
        'charge_card: reconciled (not landed)',
        'charge_card: UNKNOWN_OUTCOME/TIMEOUT → RETRY',
        'charge_card: PERMANENT/PAYMENT_REQUIRED → REPLAN',
        'charge_card: PERMANENT/PAYMENT_REQUIRED → REPLAN',
        'charge_card: PERMANENT/PAYMENT_REQUIRED → ABORT (POISON)',
      ],
    ],
  ];
  it.each(observed)(
    '%s: every failed step classified and decided as observed',
    async (_name, run, expected) => {
      const { steps, observe } = recordSteps();
      const undeclared: string[] = [];
      await run(quiet, (event) => {
        observe(event);
        if (event.type === 'policy.undeclared') undeclared.push(event.tool);
      });
      expect(steps).toEqual(expected);
      // Every tool of the demo says whether it writes: no warning a reader takes for a fault.
      expect(undeclared).toEqual([]);
    },
  );
});
