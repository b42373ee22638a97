import type { RecoveryToolDefinition } from '@recourse/openai';
import { type Tool, tool } from 'ai';
import type { SandboxTool } from './sandbox-tools.js';

/** The sandbox tools as AI SDK tools (what an agent passes to `recovery.tools`). */
export function toAiSdkTools(tools: Record<string, SandboxTool>): Record<string, Tool> {
  const out: Record<string, Tool> = {};
  for (const [name, spec] of Object.entries(tools)) {
    out[name] = tool({
      description: spec.description,
      inputSchema: spec.inputSchema,
      execute: (input) => spec.execute(input),
    });
  }
  return out;
}

/** The sandbox tools as `@recourse/openai` definitions. */
export function toOpenAITools(
  tools: Record<string, SandboxTool>,
): Record<string, RecoveryToolDefinition> {
  const out: Record<string, RecoveryToolDefinition> = {};
  for (const [name, spec] of Object.entries(tools)) {
    out[name] = {
      description: spec.description,
      inputSchema: spec.inputSchema,
      execute: (input) => spec.execute(input),
    };
  }
  return out;
}
