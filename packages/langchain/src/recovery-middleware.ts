import {
  policyFromAnnotations,
  type RecoveryRuntime,
  trackWrappedTools,
  usableTools,
} from '@recourse/core/adapter';
import { createMiddleware } from 'langchain';
import { answerInvalidToolCalls } from './invalid-tool-calls.js';
import type { RunBinding } from './run-binding.js';
import { runToolCall } from './run-tool-call.js';

/** `[recourse] …`: how guidance reads in the system prompt of the next model call. */
export function guidanceText(guidance: string): string {
  return `[recourse] ${guidance}`;
}

function withGuidance(systemPrompt: string | undefined, guidance: string): string {
  return systemPrompt ? `${systemPrompt}\n\n${guidanceText(guidance)}` : guidanceText(guidance);
}

/**
 * The agent middleware: every tool call through the run (`wrapToolCall`); before each
 * model call, the loop ends once the run is stopped (`beforeModel` jumps to the end), and
 * otherwise the model gets the run's guidance in its system prompt for that one call and
 * loses the tools that can no longer run (`wrapModelCall`); after it, calls whose
 * arguments did not parse are failures of the run (`afterModel`).
 */
export function createRecoveryMiddleware(binding: RunBinding, options: { warn: boolean }) {
  // The agent's tools, seen at the first model call: what MCP annotations say of each (below
  // the user's own policy), and the policies that name no tool of the agent.
  let registered = false;
  const register = (runtime: RecoveryRuntime, tools: readonly unknown[]) => {
    if (registered) return;
    registered = true;
    const names: string[] = [];
    for (const tool of tools) {
      const name = toolName(tool);
      if (name === undefined) continue;
      names.push(name);
      const hints = policyFromAnnotations(tool);
      if (hints) runtime.declareTool(name, hints);
    }
    trackWrappedTools(runtime, { warn: options.warn }).add(names);
  };

  return createMiddleware({
    name: 'RecourseMiddleware',
    beforeModel: {
      canJumpTo: ['end'],
      hook: (_state, invocation) =>
        binding.resolve(invocation).isStopped() ? { jumpTo: 'end' } : undefined,
    },
    wrapModelCall: (request, handler) => {
      const runtime = binding.resolve(request.runtime);
      register(runtime, request.tools);
      const tools = usableTools(runtime, request.tools, (tool) => toolName(tool) ?? '');
      const guidance = runtime.takeGuidance();
      if (tools.length === request.tools.length && guidance === undefined) return handler(request);
      return handler({
        ...request,
        tools,
        ...(guidance === undefined
          ? {}
          : { systemPrompt: withGuidance(request.systemPrompt, guidance) }),
      });
    },
    afterModel: {
      canJumpTo: ['model', 'end'],
      hook: (state, invocation) =>
        answerInvalidToolCalls(binding.resolve(invocation), state.messages),
    },
    wrapToolCall: (request, handler) =>
      runToolCall(binding.resolve(request.runtime), request, handler),
  });
}

function toolName(tool: unknown): string | undefined {
  const name = (tool as { name?: unknown } | null)?.name;
  return typeof name === 'string' ? name : undefined;
}
