import { hasMarker, type Recogniser, RecourseError } from '@recourse/core/adapter';

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

const toolMessageErrorMarker = Symbol.for('recourse.error.langchain-tool-message');
const invalidToolCallMarker = Symbol.for('recourse.error.langchain-invalid-tool-call');

/**
 * A tool call answered with a `ToolMessage` whose `status` is "error" (an unknown tool, a
 * tool that reports its own failure that way), thrown so that it is classified by its text.
 */
export class ToolMessageError extends RecourseError {
  readonly [toolMessageErrorMarker] = true;
  /** LangChain answered for a tool the agent does not have: the model's mistake to repair. */
  readonly unknownTool: boolean;

  constructor(text: string, unknownTool: boolean) {
    super(unknownTool ? 'NO_SUCH_TOOL' : 'TOOL_CALL_FAILED', text);
    this.name = 'ToolMessageError';
    this.unknownTool = unknownTool;
  }

  static override isInstance(value: unknown): value is ToolMessageError {
    return hasMarker(value, toolMessageErrorMarker);
  }
}

/**
 * A call the model made whose arguments did not parse: LangChain's chat model puts it in
 * the message's `invalid_tool_calls` (with the parser's text), and no tool ever runs.
 */
export class InvalidToolCallError extends RecourseError {
  readonly [invalidToolCallMarker] = true;

  constructor(toolName: string, parserError: string | undefined) {
    const why = parserError ? `: ${parserError}` : '';
    super('INVALID_TOOL_INPUT', `The arguments of ${toolName} are not a valid JSON object${why}`);
    this.name = 'InvalidToolCallError';
  }

  static override isInstance(value: unknown): value is InvalidToolCallError {
    return hasMarker(value, invalidToolCallMarker);
  }
}

/**
 * What LangChain's own failures mean, registered with the run's runtime. LangChain rejects
 * arguments that do not match a tool's schema before the tool runs, with a
 * `ToolInvocationError` (branded, its `name` a plain "Error") around the parsing error:
 * a VALIDATION failure, told with the parsing error's text (not the stack LangChain adds).
 */
export const langchainRecognisers: readonly Recogniser[] = [
  {
    name: 'langchain',
    recognise(_facts, error) {
      if (InvalidToolCallError.isInstance(error))
        return { failureClass: 'VALIDATION', code: 'INVALID_INPUT' };
      if (ToolMessageError.isInstance(error) && error.unknownTool)
        return { failureClass: 'VALIDATION', code: 'NO_SUCH_TOOL' };
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
  },
];
