import { tool as sdkTool } from '@openai/agents';

const madeHere = Symbol.for('recourse.openai-agents.recoverable-tool');

type SdkToolOptions = Parameters<typeof sdkTool>[0];

/**
 * The SDK's `tool()`, with `errorFunction: null`: a failure of `execute` is thrown to the
 * caller instead of being turned into "An error occurred while running the tool. Please try
 * again.", so `recovery.tools()` can classify it and answer the model with a recovery
 * contract. Pass the result through `recovery.tools()`: unwrapped, a failure ends the run.
 */
export const tool: typeof sdkTool = ((options: SdkToolOptions) => {
  const made = sdkTool({ ...options, errorFunction: null } as SdkToolOptions);
  Object.defineProperty(made, madeHere, { value: true });
  return made;
}) as typeof sdkTool;

/** True for a tool made by this package's `tool()`. */
export function isRecoverableTool(value: unknown): boolean {
  return typeof value === 'object' && value !== null && madeHere in value;
}
