import { describeAdapterContract } from '@recourse/core/testing';
import { createRecovery } from '@recourse/langchain';
import { type ScriptEntry, text, toolCall } from '@recourse/testing';
import { createAgent, ToolMessage, tool } from 'langchain';
import { useScriptedProvider } from '../test-support/harness.js';

const { provider, model } = useScriptedProvider();

describeAdapterContract('@recourse/langchain', {
  start(options, contractTools) {
    const recovery = createRecovery({ ...options, warn: false });
    const runtime = recovery.runtime;
    if (!runtime) throw new Error('a recovery with a runId has its run at once');
    const agent = createAgent({
      model: model(),
      tools: Object.entries(contractTools).map(([name, contractTool]) =>
        tool(
          (input: Record<string, string>, config) => contractTool.execute(input, config?.signal),
          { name, description: contractTool.description, schema: contractTool.inputSchema },
        ),
      ),
      middleware: [recovery.middleware],
    });
    return {
      runtime,
      async play(turns) {
        const script: ScriptEntry[] = turns.map((calls) =>
          calls.map((c) => toolCall(c.name, c.input, { id: c.id })),
        );
        provider.reset([...script, text('done')]);
        const result = await agent.invoke(
          { messages: [{ role: 'user', content: 'go' }] },
          // The loop of each turn is a few graph steps; LangGraph's default limit is 25.
          { recursionLimit: 10 * (turns.length + 1) },
        );
        // Each call's answer as the agent holds it: the last one of a stopped run is there,
        // though no model request carried it.
        const answers = new Map<string, string>();
        for (const message of result.messages)
          if (ToolMessage.isInstance(message)) answers.set(message.tool_call_id, message.text);
        return { answers, modelRequests: provider.requests.length };
      },
    };
  },
});
