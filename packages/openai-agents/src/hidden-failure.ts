// The sentence the SDK's default `errorFunction` hands the model instead of a failure:
// `defaultToolErrorFunction` in @openai/agents-core, dist/tool.mjs (src/tool.ts). 0.20.0
// returns it alone; 0.16.0 appends " Error: <the error's toString()>".
export const sdkDefaultErrorText = 'An error occurred while running the tool. Please try again.';

/** True for a tool output made by the SDK's default error function (any supported version). */
export function isSdkDefaultErrorText(output: unknown): boolean {
  return (
    typeof output === 'string' &&
    (output === sdkDefaultErrorText || output.startsWith(`${sdkDefaultErrorText} Error: `))
  );
}

export const hiddenFailureReason =
  "the SDK's default errorFunction answers its failures with a fixed sentence. Make it with tool() from @recourse/openai-agents, or pass errorFunction: null";

const marker = Symbol.for('recourse.openai-agents.tool-failure-hidden');

/**
 * A tool answered with the SDK's fixed error sentence: it failed, and the error itself was
 * swallowed before recourse could see it. Classified as an unrecognised failure (PERMANENT
 * for a read, UNKNOWN_OUTCOME for a tool that may write), never as a success.
 */
export class ToolFailureHiddenError extends Error {
  readonly [marker] = true;
  readonly toolName: string;

  constructor(toolName: string) {
    super(`${toolName} failed; the SDK's default error function hid the error`);
    this.name = 'ToolFailureHiddenError';
    this.toolName = toolName;
  }

  static isInstance(value: unknown): value is ToolFailureHiddenError {
    return typeof value === 'object' && value !== null && marker in value;
  }
}
