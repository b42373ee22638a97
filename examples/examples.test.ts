import type { RecoveryEvent } from '@recourse/core';
import { describe, expect, it } from 'vitest';
import { runExtractExample } from './ai-sdk/extract.js';
import { runGithubExample } from './ai-sdk/github.js';
import { runMergeExample } from './ai-sdk/merge.js';
import { runRefundExample } from './ai-sdk/refund.js';
import { runOpenAIGithubExample } from './openai/github.js';
import { runOpenAIRefundExample } from './openai/refund.js';
import { runOtelExample } from './otel/trace.js';

// The examples are the demo; these keep them honest (offline, scripted provider).
const quiet = () => {};

/** Each failed step as observed: tool, failure class / code, and the decision taken. */
function recordSteps() {
  const steps: string[] = [];
  let pending = '';
  const observe = (event: RecoveryEvent) => {
    if (event.type === 'failure.classified') {
      pending = `${event.tool}: ${event.classification.failureClass}/${event.classification.code}`;
    } else if (event.type === 'decision.made') {
      steps.push(`${pending} → ${event.decision.action}`);
    } else if (event.type === 'call.blocked') {
      steps.push(`${event.tool}: blocked (${event.reason})`);
    }
  };
  return { steps, observe };
}

describe.skipIf(process.env.OPENAI_API_KEY)('examples (offline)', () => {
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

  // The seed's test plan: a fixture for every step of a job, with real observed values.
  it.each([
    ['refund', runRefundExample, ['refund_payment: UNKNOWN_OUTCOME/TIMEOUT → RECONCILE']],
    [
      'github',
      runGithubExample,
      [
        'github_api: AUTHORIZATION/FORBIDDEN → ABORT',
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
        'save_invoice: VALIDATION/INVALID_INPUT → ABORT',
      ],
    ],
    ['merge', runMergeExample, ['merge_pull_request: STALE_STATE/PRECONDITION_FAILED → REOBSERVE']],
  ] as const)(
    '%s: every failed step classified and decided as observed',
    async (_name, run, expected) => {
      const { steps, observe } = recordSteps();
      await run(quiet, observe);
      expect(steps).toEqual(expected);
    },
  );
});
