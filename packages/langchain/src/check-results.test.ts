// The shared check-results suite (`@recourse/core/testing`) through createAgent.
import { type CiReport, checkResultsOptions, describeCheckResults } from '@recourse/core/testing';
import { createRecovery } from '@recourse/langchain';
import { callService, createCiService, text, toolCall } from '@recourse/testing';
import { AIMessage, createAgent, ToolMessage, tool } from 'langchain';
import { z } from 'zod';
import { systemTextOf, useScriptedProvider } from '../test-support/harness.js';

const { provider, model, use } = useScriptedProvider();

const runTests = tool(
  async (input) => (await callService('POST', 'https://ci.test/runs', input)) as CiReport,
  {
    name: 'run_tests',
    description: 'Run a test suite in CI',
    schema: z.object({ suite: z.string() }),
  },
);

describeCheckResults('check(result, input) through createAgent ($api)', [{ api: 'chat' }], () => ({
  guidanceMark: '[recourse] ',
  async run(plan) {
    const ci = createCiService(plan.reports);
    use(ci.handler);
    provider.reset([
      ...Array.from({ length: plan.calls }, () => toolCall('run_tests', { suite: 'checkout' })),
      text(plan.answer),
    ]);
    // A check here reads the ToolMessage content: the report as JSON text (README, Notes).
    const recovery = createRecovery(
      checkResultsOptions(plan, (content: string, input) =>
        plan.check(JSON.parse(content) as CiReport, input),
      ),
    );
    const agent = createAgent({
      model: model(),
      tools: [runTests],
      middleware: [recovery.middleware],
    });
    const result = await agent.invoke(
      { messages: [{ role: 'user', content: 'Make the checkout tests pass' }] },
      { recursionLimit: 10 * (plan.maxSteps + 1) },
    );
    // Each call's answer as the agent holds it: the last one of a stopped run is there too.
    const outputs = result.messages.filter(ToolMessage.isInstance).map((message) => message.text);
    const asked = result.messages.filter(
      (message) => AIMessage.isInstance(message) && (message.tool_calls?.length ?? 0) > 0,
    );
    const last = result.messages.at(-1);
    const output = (index: number) => {
      const found = outputs[index];
      if (found === undefined) throw new Error(`no answer #${index}`);
      return found;
    };
    return {
      runs: ci.runs,
      steps: asked.length,
      requests: provider.requests.length,
      remaining: provider.remaining(),
      output,
      contract: (index) => JSON.parse(output(index)) as Record<string, unknown>,
      value: (index) => JSON.parse(output(index)) as unknown,
      guidance: (index) => systemTextOf(provider, index),
      requestBodies: provider.requests.map((request) => request.rawBody),
      outcome: recovery.outcome(),
      text: last && AIMessage.isInstance(last) ? last.text : '',
    };
  },
}));
