import { type Recogniser, RecourseError } from '@recourse/core';

/**
 * LangGraph's own control flow thrown through a tool: `interrupt()` (a pause for a human),
 * a `Command` to a parent graph. Never a failure; LangGraph marks them all the same way.
 */
export function isGraphBubbleUp(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { is_bubble_up?: unknown }).is_bubble_up === true
  );
}

/**
 * LangChain rejects arguments that do not match a tool's schema before the tool runs, with
 * a `ToolInvocationError` (branded, its `name` a plain "Error") around the parsing error:
 * a VALIDATION failure, told with the parsing error's text (not the stack LangChain adds).
 */
export const toolInvocationRecogniser: Recogniser = {
  name: 'langchain:tool-invocation',
  recognise(_facts, error) {
    if ((error as { '~brand'?: unknown } | null)?.['~brand'] !== 'ToolInvocationError') {
      return undefined;
    }
    const cause = (error as { toolError?: unknown }).toolError;
    const message = cause instanceof Error ? cause.message : undefined;
    return {
      failureClass: 'VALIDATION',
      code: 'INVALID_INPUT',
      ...(message === undefined ? {} : { message }),
    };
  },
};

const toolMessageErrorMarker = Symbol.for('recourse.error.langchain-tool-message');

/**
 * A tool call answered with a `ToolMessage` whose `status` is "error" (an unknown tool, a
 * tool that reports its own failure that way), thrown so that it is classified by its text.
 */
export class ToolMessageError extends RecourseError {
  readonly [toolMessageErrorMarker] = true;

  constructor(text: string, unknownTool: boolean) {
    super(unknownTool ? 'NO_SUCH_TOOL' : 'TOOL_CALL_FAILED', text);
    // The classifier reads names: an unknown tool is the model's mistake to repair.
    this.name = unknownTool ? 'NoSuchToolError' : 'ToolMessageError';
  }

  static override isInstance(value: unknown): value is ToolMessageError {
    return typeof value === 'object' && value !== null && toolMessageErrorMarker in value;
  }
}
