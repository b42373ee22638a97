import {
  contractText,
  modelValue,
  type RecoveryContract,
  type ToolCallSuccess,
} from '@recourse/core';

/** A `tools/call` result as MCP defines it (only what the proxy builds). */
export interface CallToolResult {
  content: { type: 'text'; text: string }[];
  isError?: boolean;
  [key: string]: unknown;
}

/** A failed call, for any client's model: the recovery contract as JSON text. */
export function contractResult(contract: RecoveryContract): CallToolResult {
  return { content: [{ type: 'text', text: contractText(contract) }], isError: true };
}

/**
 * A successful call: the upstream's own result, as it came (or as the ledger stored it).
 * A fallback's degraded answer, or a reconcile's result that is not a tool result, is
 * sent as JSON text.
 */
export function successResult(result: ToolCallSuccess): Record<string, unknown> {
  const value = modelValue(result);
  if (!result.degraded && isToolResult(value)) return value;
  const text = value === undefined ? 'done' : JSON.stringify(value);
  return { content: [{ type: 'text', text }] };
}

function isToolResult(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as { content?: unknown }).content)
  );
}
