import { RecourseError } from '@recourse/core';
import type { SchemaIssue } from './schema/validate-json-schema.js';

const noSuchToolMarker = Symbol.for('recourse.error.no-such-tool');
const invalidInputMarker = Symbol.for('recourse.error.invalid-tool-input');

/**
 * The model called a tool that is not in the set. Named like the AI SDK's error so the
 * core classifier recognises it (VALIDATION, NO_SUCH_TOOL) without knowing this package.
 */
export class NoSuchToolError extends RecourseError {
  readonly [noSuchToolMarker] = true;
  readonly toolName: string;
  readonly availableTools: string[];

  constructor(toolName: string, availableTools: string[]) {
    super(
      'NO_SUCH_TOOL',
      `Model tried to call unavailable tool "${toolName}". Available tools: ${availableTools.join(', ') || 'none'}.`,
    );
    this.name = 'AI_NoSuchToolError';
    this.toolName = toolName;
    this.availableTools = availableTools;
  }

  static override isInstance(value: unknown): value is NoSuchToolError {
    return typeof value === 'object' && value !== null && noSuchToolMarker in value;
  }
}

/**
 * The arguments broke a plain JSON Schema. `issues` has zod's shape, so the classifier
 * names the offending field (`invalid_field`) the same way it does for a ZodError.
 */
export class ToolInputValidationError extends RecourseError {
  readonly [invalidInputMarker] = true;
  readonly issues: SchemaIssue[];

  constructor(toolName: string, issue: SchemaIssue) {
    const field = issue.path.length ? issue.path.join('.') : 'input';
    super('INVALID_TOOL_INPUT', `Invalid arguments for ${toolName}: ${field} ${issue.message}`);
    this.name = 'ValidationError';
    this.issues = [issue];
  }

  static override isInstance(value: unknown): value is ToolInputValidationError {
    return typeof value === 'object' && value !== null && invalidInputMarker in value;
  }
}
