import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

export interface ListenOptions {
  host?: string | undefined;
  /** 0 picks a free port. */
  port: number;
  /** Default `/mcp`. */
  path?: string | undefined;
}

export interface ProxyListener {
  /** `http://host:port/mcp` */
  readonly url: string;
  close(): Promise<void>;
}

interface Opened {
  close(): Promise<void>;
}

/**
 * Streamable HTTP, stateful: each `initialize` opens a session (its id is the run id
 * unless the proxy has its own), and the session's requests go to its transport.
 */
export async function listenHttp(
  options: ListenOptions,
  open: (transport: Transport, sessionId: string) => Promise<Opened>,
): Promise<ProxyListener> {
  const path = options.path ?? '/mcp';
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const opened = new Set<Opened>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    if (url.pathname !== path) {
      res.writeHead(404).end();
      return;
    }
    const header = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    if (body === invalid) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: null,
          error: { code: -32700, message: 'Parse error' },
        }),
      );
      return;
    }
    let transport = sessionId === undefined ? undefined : transports.get(sessionId);
    if (!transport && sessionId === undefined && isInitialize(body)) {
      const id = randomUUID();
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => id,
        onsessioninitialized: () => void transports.set(id, created),
        onsessionclosed: () => void transports.delete(id),
      });
      const session = await open(created, id);
      opened.add(session);
      created.onclose = () => {
        transports.delete(id);
        opened.delete(session);
        void session.close();
      };
      transport = created;
    }
    if (!transport) {
      res.writeHead(sessionId === undefined ? 400 : 404, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: null,
          error: {
            code: -32000,
            message: sessionId === undefined ? 'Bad Request: no session' : 'Session not found',
          },
        }),
      );
      return;
    }
    await transport.handleRequest(req, res, body);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}${path}`,
    async close() {
      await Promise.all([...opened].map((session) => session.close()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const invalid = Symbol('invalid JSON');

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return invalid;
  }
}

function isInitialize(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some(
    (message) => (message as { method?: unknown } | null)?.method === 'initialize',
  );
}
