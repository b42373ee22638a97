import { policyFromAnnotations, type RecoveryRuntime } from '@recourse/core/adapter';
import { createMiddleware } from 'langchain';
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
 * loses the tools that can no longer run (`wrapModelCall`).
 */
export function createRecoveryMiddleware(binding: RunBinding, options: { warn: boolean }) {
  const unusable = (runtime: RecoveryRuntime, tools: readonly unknown[]) =>
    new Set(runtime.unusableTools(tools.map(toolName).filter((n) => n !== undefined)));
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
    for (const unused of runtime.registerTools(names)) {
      if (!options.warn) continue;
      const meant = unused.suggestion ? ` (did you mean "${unused.suggestion}"?)` : '';
      console.warn(
        `recourse: policies.${unused.tool} names no tool of the agent${meant}; that policy applies to nothing. createRecovery({ warn: false }) silences this.`,
      );
    }
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
      const closed = unusable(runtime, request.tools);
      const guidance = runtime.takeGuidance();
      if (closed.size === 0 && guidance === undefined) return handler(request);
      return handler({
        ...request,
        tools: request.tools.filter((tool) => !closed.has(toolName(tool) ?? '')),
        ...(guidance === undefined
          ? {}
          : { systemPrompt: withGuidance(request.systemPrompt, guidance) }),
      });
    },
    wrapToolCall: (request, handler) =>
      runToolCall(binding.resolve(request.runtime), request, handler),
  });
}

function toolName(tool: unknown): string | undefined {
  const name = (tool as { name?: unknown } | null)?.name;
  return typeof name === 'string' ? name : undefined;
}
