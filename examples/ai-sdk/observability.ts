import { createRecovery } from '@recourse/ai-sdk';
import { type Clock, systemClock } from '@recourse/core';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, tool } from 'ai';
import { z } from 'zod';
import { httpError } from '../shared/downstream.js';
import { createExampleModel } from '../shared/model.js';
import { createTrace, type Log, type Observer } from '../shared/trace.js';

/**
 * The observability API is down (503 on every attempt). The read is retried within its
 * budget, then the declared fallback stands in: a cached telemetry snapshot. The model does
 * not get the snapshot as if it were live: it gets an explicit PARTIAL_RESULT naming the
 * missing evidence, with LOW confidence, and says so; the run's outcome is PARTIAL_RESULT
 * too. Never silently stale data.
 */
export async function runObservabilityExample(
  log: Log = console.log,
  observe?: Observer,
  clock: Clock = systemClock,
) {
  let apiRequests = 0;
  const { model, close, provider } = createExampleModel([
    toolCall('read_application_logs', { service: 'checkout', since: '13:40' }),
    toolCall('deployment_metrics', { service: 'checkout' }),
    text(
      'Application logs were analyzed (connection timeouts to the database), but live deployment telemetry was unavailable: the metrics are from a cached snapshot. Confidence: low.',
    ),
  ]);
  const trace = createTrace(log, observe);
  const recovery = createRecovery({
    runId: 'run-observability-5',
    onEvent: trace.onEvent,
    clock,
    retry: { maxAttempts: 3 }, // attempts of one call, the first included
    defaultPolicy: { sideEffects: false },
    policies: {
      deployment_metrics: {
        fallback: () => ({ snapshot_taken_at: '13:05', p99_ms: 180, error_rate: 0.001 }),
        missingEvidence: 'live deployment metrics',
      },
    },
  });
  try {
    const result = await generateText({
      model,
      prompt: 'Why is checkout slow since 13:40?',
      tools: recovery.tools({
        read_application_logs: tool({
          description: 'Read the application logs of a service',
          inputSchema: z.object({ service: z.string(), since: z.string() }),
          execute: async () => ['13:41 ERROR db connect timeout', '13:42 ERROR db connect timeout'],
        }),
        deployment_metrics: tool({
          description: 'Query the observability API for live deployment metrics',
          inputSchema: z.object({ service: z.string() }),
          execute: async (): Promise<unknown> => {
            apiRequests++;
            throw httpError(503, 'observability API unavailable');
          },
        }),
      }),
      stopWhen: [isStepCount(5), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });
    const outcome = recovery.outcome();
    const told = provider?.toolResults().find((r) => r.output.includes('PARTIAL_RESULT'));
    if (told) log(`the model received: ${told.output}`);
    trace.printOutcome(outcome);
    log(`observability API requests: ${apiRequests}; model: ${result.text}`);
    return { outcome, apiRequests, told: told && JSON.parse(told.output), text: result.text };
  } finally {
    close();
  }
}
