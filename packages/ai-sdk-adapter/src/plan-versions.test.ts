// The shared plan-versions suite (`@recourse/core/testing`) through generateText.
import { createRecovery } from '@recourse/ai-sdk';
import { describePlanVersions } from '@recourse/core/testing';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, type LanguageModel, tool } from 'ai';
import { z } from 'zod';
import { instructionsSent, readContract, useScriptedProvider } from '../test-support/harness.js';
import { createIncidentShop, incidentPolicies } from '../test-support/incident-shop.js';

const { provider, chat, responses, use } = useScriptedProvider();

const models = [
  { api: 'chat', model: chat },
  { api: 'responses', model: responses },
] as const;

describePlanVersions(
  'plan versions through generateText ($api)',
  models,
  ({ model }: { model: () => LanguageModel }) => ({
    guidanceMark: '[recourse] ',
    async run(turns, options, prompt, maxSteps) {
      const shop = createIncidentShop();
      use(...shop.handlers);
      provider.reset(
        turns.map((turn) =>
          typeof turn === 'string' ? text(turn) : turn.map((c) => toolCall(c.name, c.input)),
        ),
      );
      const recovery = createRecovery({
        runId: 'run-pv',
        ...options,
        policies: incidentPolicies,
      });
      const { execute } = shop;
      const result = await generateText({
        model: model(),
        prompt,
        tools: recovery.tools({
          find_deployments: tool({
            description: 'Deployments of a service since a time',
            inputSchema: z.object({ service: z.string(), since: z.string() }),
            execute: execute.find_deployments,
          }),
          get_dashboard: tool({
            description: 'Read a dashboard',
            inputSchema: z.object({ uid: z.string() }),
            execute: execute.get_dashboard,
          }),
          query_metrics: tool({
            description: 'Query a metric',
            inputSchema: z.object({ q: z.string() }),
            execute: execute.query_metrics,
          }),
          run_tests: tool({
            inputSchema: z.object({ suite: z.string(), serial: z.boolean().optional() }),
            execute: execute.run_tests,
          }),
          read_fixture: tool({
            inputSchema: z.object({ name: z.string() }),
            execute: async (input) => execute.read_fixture(input),
          }),
        }),
        stopWhen: [isStepCount(maxSteps), recovery.stopWhen],
        prepareStep: recovery.prepareStep,
      });
      const output = (index: number) => {
        const read = provider.toolResults()[index];
        if (!read) throw new Error(`the model read no result #${index}`);
        return read.output;
      };
      return {
        requests: shop.requests,
        ciRuns: shop.ciRuns,
        fixtureReads: shop.fixtureReads,
        modelRequests: provider.requests.length,
        output,
        contract: (index) => readContract(output(index)),
        guidance: (index) => instructionsSent(provider, index),
        outcome: recovery.outcome(),
        text: result.text,
      };
    },
  }),
);
