import type { SchemaIssue } from './schema/validate-json-schema.js';

/**
 * The model called a tool that is not in the set. Named like the AI SDK's error so the
 * core classifier recognises it (VALIDATION, NO_SUCH_TOOL) without knowing this package.
 */
export class NoSuchToolError extends Error {
  readonly toolName: string;
  readonly availableTools: string[];
  constructor(toolName: string, availableTools: string[]) {
    super(
      `Model tried to call unavailable tool "${toolName}". Available tools: ${availableTools.join(', ') || 'none'}.`,
    );
    this.name = 'AI_NoSuchToolError';
    this.toolName = toolName;
    this.availableTools = availableTools;
  }
}

/**
 * The arguments broke a plain JSON Schema. `issues` has zod's shape, so the classifier
 * names the offending field (`invalid_field`) the same way it does for a ZodError.
 */
export class ToolInputValidationError extends Error {
  readonly issues: SchemaIssue[];
  constructor(toolName: string, issue: SchemaIssue) {
    const field = issue.path.length ? issue.path.join('.') : 'input';
    super(`Invalid arguments for ${toolName}: ${field} ${issue.message}`);
    this.name = 'ValidationError';
    this.issues = [issue];
  }
}
