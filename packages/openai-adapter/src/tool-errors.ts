import { hasMarker, type Recogniser, RecourseError } from '@recourse/core/adapter';
import type { SchemaIssue } from './schema/validate-json-schema.js';

const noSuchToolMarker = Symbol.for('recourse.error.no-such-tool');
const invalidInputMarker = Symbol.for('recourse.error.invalid-tool-input');

/** The model called a tool that is not in the set (VALIDATION, `NO_SUCH_TOOL`). */
export class NoSuchToolError extends RecourseError {
  readonly [noSuchToolMarker] = true;
  readonly toolName: string;
  readonly availableTools: string[];

  constructor(toolName: string, availableTools: string[]) {
    super(
      'NO_SUCH_TOOL',
      `Model tried to call unavailable tool "${toolName}". Available tools: ${availableTools.join(', ') || 'none'}.`,
    );
    this.name = 'NoSuchToolError';
    this.toolName = toolName;
    this.availableTools = availableTools;
  }

  static override isInstance(value: unknown): value is NoSuchToolError {
    return hasMarker(value, noSuchToolMarker);
  }
}

/**
 * The arguments broke a plain JSON Schema (VALIDATION, `INVALID_INPUT`). `issues` has
 * zod's shape, so the classifier names the offending field (`invalid_field`) the same way
 * it does for a ZodError.
 */
export class ToolInputValidationError extends RecourseError {
  readonly [invalidInputMarker] = true;
  readonly issues: SchemaIssue[];

  constructor(toolName: string, issue: SchemaIssue) {
    const field = issue.path.length ? issue.path.join('.') : 'input';
    super('INVALID_TOOL_INPUT', `Invalid arguments for ${toolName}: ${field} ${issue.message}`);
    this.name = 'ToolInputValidationError';
    this.issues = [issue];
  }

  static override isInstance(value: unknown): value is ToolInputValidationError {
    return hasMarker(value, invalidInputMarker);
  }
}

/** What this adapter's own errors mean, registered with the runtime it drives. */
export const toolErrorRecognisers: readonly Recogniser[] = [
  {
    name: 'openai-adapter',
    recognise: (_facts, error) => {
      if (NoSuchToolError.isInstance(error))
        return { failureClass: 'VALIDATION', code: 'NO_SUCH_TOOL' };
      if (ToolInputValidationError.isInstance(error))
        return { failureClass: 'VALIDATION', code: 'INVALID_INPUT' };
      return undefined;
    },
  },
];
