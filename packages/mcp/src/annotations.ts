import type { ToolPolicy } from '@recourse/core';

/** A tool as `tools/list` describes it: only what the proxy reads. */
export interface ListedTool {
  name: string;
  annotations?:
    | {
        readOnlyHint?: boolean | undefined;
        idempotentHint?: boolean | undefined;
      }
    | undefined;
}

/**
 * What a tool's annotations say of it, below the config's own policy for that tool:
 * `readOnlyHint: true` is a read; `idempotentHint: true` an idempotent write; anything else
 * may write, and is claimed in the ledger like a write (a client that lost the response
 * re-issues the call, and the stored result answers it). Where the config's
 * `defaultPolicy` says `sideEffects` for tools that declare nothing, it applies instead.
 */
export function policyFromAnnotations(
  tool: ListedTool,
  defaultPolicy: ToolPolicy | undefined,
): ToolPolicy | undefined {
  const hints = tool.annotations;
  if (hints?.readOnlyHint === true) return { sideEffects: false };
  if (hints?.idempotentHint === true) return { sideEffects: true, idempotent: true };
  if (defaultPolicy?.sideEffects !== undefined) return undefined;
  return { sideEffects: true };
}
