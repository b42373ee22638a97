import { Agent, type RunItem, run } from '@openai/agents';
import { describeAdapterContract } from '@recourse/core/testing';
import { text, toolCall } from '@recourse/testing';
import { createRecovery, tool } from './index.js';
import { useAgentsHarness } from './test-support/agents.js';

const { provider } = useAgentsHarness();

describeAdapterContract('@recourse/openai-agents', {
  start(options, contractTools) {
    const recovery = createRecovery({ ...options, warn: false });
    const agent = new Agent({
      name: 'contract',
      model: 'gpt-4o',
      tools: recovery.tools(
        Object.entries(contractTools).map(([name, t]) =>
          tool({
            name,
            description: t.description,
            parameters: t.inputSchema,
            strict: true,
            execute: (input, _context, details) =>
              t.execute(input as Record<string, string>, details?.signal),
          }),
        ),
      ),
      toolUseBehavior: recovery.toolUseBehavior,
    });
    return {
      runtime: recovery.runtime,
      async play(turns) {
        // One model response per turn, its calls side by side; then the final text.
        provider.reset([
          ...turns.map((calls) => calls.map((c) => toolCall(c.name, c.input, { id: c.id }))),
          text('done'),
        ]);
        const result = await run(agent, 'go', { maxTurns: turns.length + 1 });
        return { answers: answersIn(result.newItems), modelRequests: provider.requests.length };
      },
    };
  },
});

/**
 * The text each call's result carries to the model, by call id, from the run's items: the
 * calls of a turn that ended the run are answered there too, though never sent back.
 */
function answersIn(items: readonly RunItem[]): Map<string, string> {
  const answers = new Map<string, string>();
  for (const item of items) {
    if (item.type !== 'tool_call_output_item' || item.rawItem.type !== 'function_call_result')
      continue;
    const { output } = item;
    answers.set(item.rawItem.callId, typeof output === 'string' ? output : JSON.stringify(output));
  }
  return answers;
}
