import { RecourseError } from '@recourse/core';

const mcpToolErrorMarker = Symbol.for('recourse.error.mcp-tool-error');

/** An MCP server's answer to `tools/call` with `isError: true`, thrown so it is classified. */
export class McpToolError extends RecourseError {
  readonly [mcpToolErrorMarker] = true;
  readonly result: unknown;

  constructor(message: string, result: unknown) {
    super('MCP_TOOL_ERROR', message);
    this.name = 'McpToolError';
    this.result = result;
  }

  static override isInstance(value: unknown): value is McpToolError {
    return typeof value === 'object' && value !== null && mcpToolErrorMarker in value;
  }
}

/** MCP returns tool failures as results (`isError: true`), not as throws. */
export function isMcpErrorResult(value: unknown): value is { isError: true; content?: unknown } {
  return (
    typeof value === 'object' && value !== null && (value as { isError?: unknown }).isError === true
  );
}

/** The result's text content, which is what the server says went wrong. */
export function mcpErrorText(result: { content?: unknown }): string {
  const parts = Array.isArray(result.content) ? result.content : [];
  const text = parts
    .filter(
      (p): p is { type: 'text'; text: string } => p?.type === 'text' && typeof p.text === 'string',
    )
    .map((p) => p.text)
    .join('\n')
    .trim();
  return text || 'MCP tool returned isError: true';
}

// Shared by every adapter whose MCP tools carry annotations.
export { policyFromAnnotations } from '@recourse/core';
