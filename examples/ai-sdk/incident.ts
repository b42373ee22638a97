import { createRecovery } from '@recourse/ai-sdk';
import { type ProviderRequest, text, toolCall, turn } from '@recourse/testing';
import { generateText, isStepCount, tool } from 'ai';
import { z } from 'zod';
import { createExampleModel } from '../shared/model.js';
import { createTrace, type Log, type Observer } from '../shared/trace.js';

/**
 * An incident diagnosis whose first hypothesis is wrong. Plan v1 assumes the 13:35
 * deployment caused the checkout 504s; the deployment query answers that no deployment of
 * checkout exists in the window. The tool did not fail: the observation disproves the
 * hypothesis, and the policy's `check` says so (PERMANENT, so REPLAN, never the same query
 * again). The outcome's plan moves from v1 to v2 with what invalidated it; the model is told
 * both versions and follows plan v2 to the database, where the cause is.
 */
export async function runIncidentExample(log: Log = console.log, observe?: Observer) {
  const queries: string[] = [];
  const { model, close } = createExampleModel([
    turn({
      text: 'Plan v1: the 13:35 deployment caused it. Checking the deployments.',
      toolCalls: [toolCall('find_deployments', { service: 'checkout', since: '13:30' })],
    }),
    // The scripted model reads what it was told and follows the plan version it names.
    (request: ProviderRequest) => {
      const told = JSON.parse(request.toolResults.at(-1)?.output ?? '{}');
      return turn({
        text: `Plan v${told.plan_version}: no deployment, so look at the database.`,
        toolCalls: [toolCall('query_metrics', { service: 'checkout', metric: 'db_pool_in_use' })],
      });
    },
    text(
      'Not the deployment (none in the window): the checkout database pool is exhausted (50 of 50 connections) since 13:41.',
    ),
  ]);
  const trace = createTrace(log, observe, { guidance: true });
  const recovery = createRecovery({
    runId: 'run-incident-31',
    onEvent: trace.onEvent,
    defaultPolicy: { sideEffects: false },
    policies: {
      find_deployments: {
        check: (deployments: unknown[], input: { service: string; since: string }) =>
          deployments.length === 0
            ? {
                message: `no deployment of ${input.service} since ${input.since}: the deployment hypothesis is disproved`,
                code: 'HYPOTHESIS_DISPROVED',
                failureClass: 'PERMANENT',
              }
            : undefined,
      },
    },
  });
  try {
    const result = await generateText({
      model,
      prompt: 'checkout has returned 504s since 13:40. Find the cause.',
      tools: recovery.tools({
        find_deployments: tool({
          description: 'List the deployments of a service since a time',
          inputSchema: z.object({ service: z.string(), since: z.string() }),
          execute: async ({ service }): Promise<unknown[]> => {
            queries.push(`deployments ${service}`);
            return []; // the 13:35 deployment was of the search service, not checkout
          },
        }),
        query_metrics: tool({
          description: 'Read a metric of a service over the last hour',
          inputSchema: z.object({ service: z.string(), metric: z.string() }),
          execute: async ({ metric }) => {
            queries.push(`metrics ${metric}`);
            return { metric, max: 50, in_use: 50, saturated_since: '13:41' };
          },
        }),
      }),
      stopWhen: [isStepCount(6), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });
    const outcome = recovery.outcome();
    trace.printOutcome(outcome);
    for (const { version, invalidated_by } of outcome.plan.history)
      log(`plan v${version} invalidated by ${invalidated_by.observation} → v${version + 1}`);
    log(`model: ${result.text}`);
    return { outcome, queries, text: result.text };
  } finally {
    close();
  }
}
