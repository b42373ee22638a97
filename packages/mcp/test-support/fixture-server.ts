// An MCP server with one tool per behaviour the proxy's tests need: reads, a write that
// hangs after writing, a read that answers 503 once, a 403, a validation failure, a death.
// Everything it did is in `state`, read through the `stats` tool or directly in-process.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface FixtureState {
  /** Every write that landed: `write_entry`'s id, in order. */
  writes: string[];
  /** Executions per tool. */
  runs: Record<string, number>;
  /** The idempotency keys received in `_meta`, per tool. */
  keys: Record<string, string[]>;
  /** Calls of `flaky_read` per id. */
  flaky: Record<string, number>;
  /** Writes waiting for `release`. */
  gates: (() => void)[];
  /** Called when a `write_entry` has written, before it answers (or hangs). */
  onWrite: ((id: string) => void) | undefined;
  /** Called when a `slow_read` is cancelled by its client. */
  onCancelled: ((id: string) => void) | undefined;
}

export function createFixtureState(): FixtureState {
  return {
    writes: [],
    runs: {},
    keys: {},
    flaky: {},
    gates: [],
    onWrite: undefined,
    onCancelled: undefined,
  };
}

const keyMeta = 'io.recourse/idempotency-key';
const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });
const failure = (value: string) => ({ ...text(value), isError: true });

export function createFixtureServer(state: FixtureState): McpServer {
  const server = new McpServer(
    { name: 'fixture', version: '1.0.0', title: 'recourse test fixture' },
    { instructions: 'A server for the proxy tests.' },
  );
  const count = (tool: string, meta: Record<string, unknown> | undefined) => {
    state.runs[tool] = (state.runs[tool] ?? 0) + 1;
    const key = meta?.[keyMeta];
    if (typeof key === 'string') state.keys[tool] = [...(state.keys[tool] ?? []), key];
  };
  server.registerTool(
    'read_note',
    {
      title: 'Read a note',
      description: 'Reads one note by id.',
      inputSchema: { id: z.string().describe('the note id') },
      outputSchema: { id: z.string(), body: z.string() },
      annotations: { readOnlyHint: true, openWorldHint: false },
      _meta: { 'fixture/kind': 'read' },
    },
    async ({ id }, extra) => {
      count('read_note', extra._meta);
      return {
        ...text(`note ${id}`),
        structuredContent: { id, body: `note ${id}` },
        _meta: { 'fixture/served': true },
      };
    },
  );
  server.registerTool(
    'flaky_read',
    {
      description: 'Answers 503 on its first call for an id, then the value.',
      inputSchema: { id: z.string() },
      annotations: { readOnlyHint: true },
    },
    async ({ id }, extra) => {
      count('flaky_read', extra._meta);
      state.flaky[id] = (state.flaky[id] ?? 0) + 1;
      if (state.flaky[id] === 1) return failure('503 Service Unavailable: try again');
      return text(`value ${id}`);
    },
  );
  server.registerTool(
    'write_entry',
    {
      description: 'Writes an entry. With hang: true it waits for `release` after writing.',
      inputSchema: { id: z.string(), hang: z.boolean().optional() },
    },
    async ({ id, hang }, extra) => {
      count('write_entry', extra._meta);
      state.writes.push(id);
      state.onWrite?.(id);
      const token = extra._meta?.progressToken;
      if (token !== undefined) {
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: 1, total: 2, message: 'written' },
        });
      }
      if (hang) await new Promise<void>((resolve) => state.gates.push(resolve));
      return text(`wrote ${id}`);
    },
  );
  server.registerTool(
    'release',
    { description: 'Lets every waiting write answer.', annotations: { idempotentHint: true } },
    async () => {
      for (const open of state.gates.splice(0)) open();
      return text('released');
    },
  );
  server.registerTool(
    'get_repo',
    {
      description: 'Reads a repository.',
      inputSchema: { repo: z.string() },
      annotations: { readOnlyHint: true },
    },
    async ({ repo }, extra) => {
      count('get_repo', extra._meta);
      if (repo.includes('secret')) return failure('403 Forbidden: no access to this repository');
      return text(`repo ${repo}`);
    },
  );
  server.registerTool(
    'shell',
    { description: 'Runs a command line (pretend).', inputSchema: { command: z.string() } },
    async ({ command }, extra) => {
      count('shell', extra._meta);
      return text(`ran ${command}`);
    },
  );
  server.registerTool(
    'check_value',
    {
      description: 'Accepts only even numbers.',
      inputSchema: { value: z.number() },
      annotations: { readOnlyHint: true },
    },
    async ({ value }, extra) => {
      count('check_value', extra._meta);
      if (value % 2 !== 0) return failure('422 Unprocessable Entity: value must be even');
      return text(`ok ${value}`);
    },
  );
  server.registerTool(
    'die',
    { description: 'The server process exits while answering.', inputSchema: {} },
    async (_args, extra) => {
      count('die', extra._meta);
      process.exit(1);
    },
  );
  server.registerTool(
    'slow_read',
    {
      description: 'Reports progress, then answers only when cancelled.',
      inputSchema: { id: z.string() },
      annotations: { readOnlyHint: true },
    },
    async ({ id }, extra) => {
      count('slow_read', extra._meta);
      const token = extra._meta?.progressToken;
      if (token !== undefined) {
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: 1, message: 'started' },
        });
      }
      await new Promise<void>((resolve) =>
        extra.signal.addEventListener('abort', () => resolve(), { once: true }),
      );
      state.onCancelled?.(id);
      return text('cancelled');
    },
  );
  server.registerTool(
    'cut_write',
    {
      description: 'Writes; over HTTP its response stream breaks.',
      inputSchema: { id: z.string() },
    },
    async ({ id }) => {
      state.writes.push(`cut:${id}`);
      return text(`wrote ${id}`);
    },
  );
  server.registerTool(
    'stats',
    { description: 'What the server did.', annotations: { readOnlyHint: true } },
    async () => text(JSON.stringify({ writes: state.writes, runs: state.runs, keys: state.keys })),
  );
  server.registerResource(
    'readme',
    'fixture://readme',
    { mimeType: 'text/plain', description: 'A resource' },
    async (uri) => ({ contents: [{ uri: uri.href, text: 'read me' }] }),
  );
  server.registerPrompt(
    'greet',
    { description: 'A prompt', argsSchema: { name: z.string() } },
    ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `hi ${name}` } }] }),
  );
  return server;
}

/** The fixture over streamable HTTP, one server per session, one shared state. */
export async function startFixtureHttp(state: FixtureState = createFixtureState()): Promise<{
  url: string;
  state: FixtureState;
  /** Sees the headers of every HTTP request the server receives. */
  onRequest: ((headers: Record<string, string | string[] | undefined>) => void) | undefined;
  close(): Promise<void>;
}> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const http: Server = createServer(async (req, res) => {
    fixture.onRequest?.(req.headers);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    // `cut_write` lands, then its response stream breaks before the answer.
    if (body?.method === 'tools/call' && body.params?.name === 'cut_write') {
      state.writes.push(`cut:${body.params.arguments?.id}`);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
      res.destroy();
      return;
    }
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? transports.get(id) : undefined;
    if (!transport) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (sid) => void transports.set(sid, created),
      });
      await createFixtureServer(state).connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  const fixture = {
    url: `http://127.0.0.1:${port}/mcp`,
    state,
    onRequest: undefined as
      | ((headers: Record<string, string | string[] | undefined>) => void)
      | undefined,
    async close() {
      for (const open of state.gates.splice(0)) open();
      for (const transport of transports.values()) await transport.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
  return fixture;
}
