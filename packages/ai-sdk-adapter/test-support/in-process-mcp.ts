import type { MCPTransport } from '@ai-sdk/mcp';

export interface McpToolDefinition {
  name: string;
  description?: string | undefined;
  inputSchema: Record<string, unknown>;
  annotations?: Record<string, boolean> | undefined;
  call: (args: Record<string, unknown>) => { text: string; isError?: boolean | undefined };
}

type Message = { jsonrpc: '2.0'; id?: string | number; method?: string; params?: unknown };

/**
 * A minimal MCP server in this process, reached through a custom transport, so the real
 * `createMCPClient().tools()` builds the tools exactly as it would for a remote server.
 */
export function createInProcessMcpTransport(tools: readonly McpToolDefinition[]): MCPTransport {
  const transport: MCPTransport = {
    async start() {},
    async close() {
      transport.onclose?.();
    },
    async send(raw) {
      const message = raw as Message;
      if (message.id === undefined || message.method === undefined) return; // a notification
      const result = answer(message.method, message.params);
      queueMicrotask(() =>
        transport.onmessage?.(
          result === undefined
            ? { jsonrpc: '2.0', id: message.id!, error: { code: -32601, message: 'not found' } }
            : { jsonrpc: '2.0', id: message.id!, result },
        ),
      );
    },
  };
  const answer = (method: string, params: unknown): Record<string, unknown> | undefined => {
    switch (method) {
      case 'initialize':
        return {
          protocolVersion: (params as { protocolVersion: string }).protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: 'in-process', version: '1.0.0' },
        };
      case 'tools/list':
        return {
          tools: tools.map(({ name, description, inputSchema, annotations }) => ({
            name,
            description,
            inputSchema,
            ...(annotations ? { annotations } : {}),
          })),
        };
      case 'tools/call': {
        const { name, arguments: args } = params as {
          name: string;
          arguments: Record<string, unknown>;
        };
        const tool = tools.find((t) => t.name === name);
        if (!tool) return undefined;
        const { text, isError } = tool.call(args ?? {});
        return { content: [{ type: 'text', text }], isError: isError === true };
      }
      default:
        return undefined;
    }
  };
  return transport;
}
