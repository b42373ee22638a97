// A local MCP server with one write that times out after writing: `create_ticket` stores the
// ticket, with the idempotency key the proxy sent in `_meta`, and on the first call for a
// title it never answers (the response is lost). `find_ticket` finds a ticket by that key.
// Run over stdio: `node --import tsx ticket-server.ts <tickets.json>`.
import { readFileSync, writeFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

interface Ticket {
  id: string;
  title: string;
  key: string | undefined;
}

const file = process.argv[2] ?? 'tickets.json';
const load = (): Ticket[] => {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Ticket[];
  } catch {
    return [];
  }
};
const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

const server = new McpServer({ name: 'tickets', version: '1.0.0' });
server.registerTool(
  'create_ticket',
  { description: 'Opens a ticket.', inputSchema: { title: z.string() } },
  async ({ title }, extra) => {
    const tickets = load();
    const key = extra._meta?.['io.recourse/idempotency-key'];
    const ticket = {
      id: `T-${tickets.length + 1}`,
      title,
      key: typeof key === 'string' ? key : undefined,
    };
    writeFileSync(file, JSON.stringify([...tickets, ticket]));
    // The ticket is written; the answer never comes the first time (a lost response).
    if (tickets.every((other) => other.title !== title)) await new Promise(() => {});
    return text(`opened ${ticket.id}`);
  },
);
server.registerTool(
  'find_ticket',
  {
    description: 'Finds a ticket by the idempotency key it was created with.',
    inputSchema: { key: z.string() },
    annotations: { readOnlyHint: true },
  },
  async ({ key }) => {
    const ticket = load().find((candidate) => candidate.key === key);
    return text(ticket ? `opened ${ticket.id}` : 'none');
  },
);
await server.connect(new StdioServerTransport());
