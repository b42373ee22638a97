import { hasMarker, RecourseError } from '../errors.js';
import type { ToolPolicy } from '../runtime/options/recovery-options.js';

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
    return hasMarker(value, mcpToolErrorMarker);
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

interface McpAnnotations {
  readOnlyHint?: boolean | undefined;
  destructiveHint?: boolean | undefined;
  idempotentHint?: boolean | undefined;
}

/**
 * A default policy from the tool's MCP annotations (`metadata.annotations` as set by
 * `@ai-sdk/mcp`, or `annotations`), used only when the user gave the tool no policy.
 * Per the MCP spec, a tool is a write unless it says it is read-only; a destructive
 * hint makes it a write regardless.
 */
export function policyFromAnnotations(tool: unknown): ToolPolicy | undefined {
  if (typeof tool !== 'object' || tool === null) return undefined;
  const t = tool as { metadata?: { annotations?: unknown }; annotations?: unknown };
  const raw = t.metadata?.annotations ?? t.annotations;
  if (typeof raw !== 'object' || raw === null) return undefined;
  const a = raw as McpAnnotations;
  const write = a.destructiveHint === true || a.readOnlyHint !== true;
  if (!write) return { sideEffects: false };
  return a.idempotentHint === true
    ? { sideEffects: true, idempotent: true }
    : { sideEffects: true };
}
