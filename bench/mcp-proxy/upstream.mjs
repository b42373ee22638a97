// The upstream of the MCP proxy benchmark: one read tool, over stdio.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'bench-upstream', version: '1.0.0' });
server.registerTool(
  'read_note',
  {
    description: 'Reads a note.',
    inputSchema: { id: z.string() },
    annotations: { readOnlyHint: true },
  },
  async ({ id }) => ({ content: [{ type: 'text', text: `note ${id}` }] }),
);
await server.connect(new StdioServerTransport());
