import type { RecoveryRuntime } from '@recourse/core';
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
export function createRecoveryMiddleware(binding: RunBinding) {
  const unusable = (runtime: RecoveryRuntime, tools: readonly unknown[]) =>
    new Set(runtime.unusableTools(tools.map(toolName).filter((n) => n !== undefined)));

  return createMiddleware({
    name: 'RecourseMiddleware',
    beforeModel: {
      canJumpTo: ['end'],
      hook: (_state, invocation) =>
        binding.resolve(invocation).isStopped() ? { jumpTo: 'end' } : undefined,
    },
    wrapModelCall: (request, handler) => {
      const runtime = binding.resolve(request.runtime);
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
