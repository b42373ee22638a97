import type { MCPServer } from '@openai/agents';
import { currentCallContext } from '@recourse/core';
import {
  contractText,
  isMcpErrorResult,
  McpToolError,
  mcpErrorText,
  policyFromAnnotations,
  type RecoveryRuntime,
} from '@recourse/core/adapter';

// What `callTool` / `callToolResult` take after the tool's name and arguments.
type CallRest = [
  meta?: Record<string, unknown> | null | undefined,
  options?: { signal?: AbortSignal } | undefined,
];

/** Where the idempotency key travels upstream, as `@recourse/mcp`'s proxy sends it. */
export const idempotencyKeyMeta = 'io.recourse/idempotency-key';

/**
 * A view of an MCP server of the SDK (`MCPServerStdio`, `MCPServerStreamableHttp`, …) whose
 * tool calls run through recourse, for `new Agent({ mcpServers })`: the key goes upstream
 * in `_meta`, an `isError: true` result is a failure (classified from its text, never passed
 * off as a value), and the tools' annotations (`readOnlyHint`, `destructiveHint`,
 * `idempotentHint`) seed their policies below the user's. A call already running through
 * recourse (an MCP tool listed with `getAllMcpTools` and passed through `tools()`) is only
 * given its key and its `isError` thrown: the call around it decides.
 *
 * The runner calls MCP tools through the server, which never sees the model's call id: a
 * call made here has none (`callContext().toolCallId` is empty).
 */
export function wrapMcpServer(server: MCPServer, runtime: RecoveryRuntime): MCPServer {
  const upstream = async (
    method: 'callTool' | 'callToolResult',
    name: string,
    args: unknown,
    rest: CallRest,
  ) => {
    const [meta, options] = rest;
    const key = currentCallContext()?.idempotencyKey;
    const withKey = key === undefined ? meta : { ...meta, [idempotencyKeyMeta]: key };
    const call = server[method] as (...a: unknown[]) => Promise<unknown>;
    const result = await call.call(server, name, args, withKey, options);
    // callTool gives the content, with `isError` on it (not enumerable); callToolResult the result.
    if (isMcpErrorResult(result))
      throw new McpToolError(
        mcpErrorText(Array.isArray(result) ? { content: result } : result),
        result,
      );
    return result;
  };

  const recovered = async (
    method: 'callTool' | 'callToolResult',
    name: string,
    args: unknown,
    rest: CallRest,
  ) => {
    // The call of this very tool, already running through recourse (a function tool from
    // getAllMcpTools passed through tools()). Any other context around it (an agent run as
    // a tool) is another call: this one gets its own key and decision.
    const around = currentCallContext();
    if (around?.runId === runtime.runId && around.toolName === name)
      return upstream(method, name, args, rest);
    const signal = rest[1]?.signal;
    const result = await runtime.execute({
      toolName: name,
      toolCallId: '',
      input: args ?? {},
      signal,
      // The runner hands the calls of one response one shared signal: that signal is the turn.
      turn: signal,
      execute: (_input, attemptSignal) =>
        upstream(method, name, args, [
          rest[0],
          attemptSignal ? { ...rest[1], signal: attemptSignal } : rest[1],
        ]),
    });
    if (result.ok) return result.value;
    const content = [{ type: 'text', text: contractText(result.contract) }];
    return method === 'callTool' ? content : { content, isError: true };
  };

  const listTools = async () => {
    const tools = await server.listTools();
    for (const listed of tools) {
      // Per the MCP spec a tool that says nothing of itself may write (destructive by default).
      const policy = policyFromAnnotations({
        // The SDK's MCPTool type leaves them out; its listing keeps them.
        annotations: (listed as { annotations?: unknown }).annotations ?? {},
      });
      if (policy) runtime.declareTool(listed.name, policy);
    }
    return tools;
  };

  return new Proxy(server, {
    get(target, property) {
      if (property === 'listTools') return listTools;
      if (property === 'callTool' || property === 'callToolResult') {
        if (typeof target[property] !== 'function') return undefined;
        return (name: string, args: unknown, ...rest: CallRest) =>
          recovered(property, name, args, rest);
      }
      const value: unknown = Reflect.get(target, property, target);
      // Bound to the server itself: its methods use private fields a proxy does not have.
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
