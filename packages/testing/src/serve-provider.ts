import { createServer, type Server } from 'node:http';
import { Readable } from 'node:stream';
import { getResponse } from 'msw';
import type { ScriptedProvider } from './scripted-provider.js';

/**
 * The scripted provider behind a real HTTP server on 127.0.0.1 (a free port), answered by
 * its msw handlers without msw intercepting anything: for a process that also talks to
 * PostgreSQL or Redis (msw 3 intercepts TCP sockets too) or for another process. Resolves
 * with the base URL to give the client (`http://127.0.0.1:<port>/v1`). The server does not
 * keep the process alive; `server.close()` stops it.
 */
export async function serveProvider(
  provider: ScriptedProvider,
): Promise<{ baseURL: string; server: Server }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      try {
        const path = (req.url ?? '/').replace(/^\/v1/, '');
        const request = new Request(`${provider.baseURL}${path}`, {
          method: req.method ?? 'POST',
          headers: Object.entries(req.headers).flatMap(([name, value]) =>
            typeof value === 'string' ? [[name, value] as [string, string]] : [],
          ),
          ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
        });
        const response = (await getResponse([...provider.handlers], request)) ?? undefined;
        if (!response) {
          res.writeHead(404).end('no handler');
          return;
        }
        res.writeHead(response.status, Object.fromEntries(response.headers));
        if (response.body) Readable.fromWeb(response.body as never).pipe(res);
        else res.end();
      } catch (error) {
        res.writeHead(500).end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  server.unref();
  return { baseURL: `http://127.0.0.1:${port}/v1`, server };
}
