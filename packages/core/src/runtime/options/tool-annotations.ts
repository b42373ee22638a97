import type { ToolPolicy } from './recovery-options.js';

interface McpAnnotations {
  readOnlyHint?: boolean | undefined;
  destructiveHint?: boolean | undefined;
  idempotentHint?: boolean | undefined;
}

/**
 * A default policy from a tool's MCP annotations (`metadata.annotations` as `@ai-sdk/mcp`
 * and `@langchain/mcp-adapters` set them, or `annotations`), used only when the user gave
 * the tool no policy: adapters declare it as the tool's hints.
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
