// The shared check-results suite (`@recourse/core/testing`) through the Agents SDK's runner.
// The adapter puts no guidance in the instructions: the contract is the model's channel.
import { Agent, type RunItem, run } from '@openai/agents';
import { type CiReport, checkResultsOptions, describeCheckResults } from '@recourse/core/testing';
import { callService, createCiService, text, toolCall } from '@recourse/testing';
import { z } from 'zod';
import { createRecovery, tool } from './index.js';
import { useAgentsHarness } from './test-support/agents.js';

const { provider, use } = useAgentsHarness();

describeCheckResults(
  'check(result, input) through the Agents SDK ($api)',
  [{ api: 'responses' }],
  () => ({
    async run(plan) {
      const ci = createCiService(plan.reports);
      use(ci.handler);
      provider.reset([
        ...Array.from({ length: plan.calls }, () => toolCall('run_tests', { suite: 'checkout' })),
        text(plan.answer),
      ]);
      const recovery = createRecovery(checkResultsOptions(plan));
      const agent = new Agent({
        name: 'ci',
        model: 'gpt-4o',
        tools: recovery.tools([
          tool({
            name: 'run_tests',
            description: 'Run a test suite in CI',
            parameters: z.object({ suite: z.string() }),
            strict: true,
            execute: async (input) =>
              (await callService('POST', 'https://ci.test/runs', input)) as CiReport,
          }),
        ]),
        toolUseBehavior: recovery.toolUseBehavior,
      });
      const result = await run(agent, 'Make the checkout tests pass', { maxTurns: plan.maxSteps });
      const outputs = outputsIn(result.newItems);
      const output = (index: number) => {
        const found = outputs[index];
        if (found === undefined) throw new Error(`no answer #${index}`);
        return found;
      };
      return {
        runs: ci.runs,
        steps: result.newItems.filter((item) => item.type === 'tool_call_item').length,
        requests: provider.requests.length,
        remaining: provider.remaining(),
        output,
        contract: (index) => JSON.parse(output(index)) as Record<string, unknown>,
        value: (index) => JSON.parse(output(index)) as unknown,
        requestBodies: provider.requests.map((request) => request.rawBody),
        outcome: recovery.outcome(),
        text: typeof result.finalOutput === 'string' ? result.finalOutput : '',
      };
    },
  }),
);

/** The text of each call's result in the run's items, in order (the last turn's too). */
function outputsIn(items: readonly RunItem[]): string[] {
  return items.flatMap((item) =>
    item.type === 'tool_call_output_item' && item.rawItem.type === 'function_call_result'
      ? [typeof item.output === 'string' ? item.output : JSON.stringify(item.output)]
      : [],
  );
}
