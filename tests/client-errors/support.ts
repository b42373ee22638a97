import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { createServer as createTcpServer } from 'node:net';
import { classifyFailure } from '@recourse/core';

/** One scripted answer of the fixture server; `hang` never answers, `drop` resets. */
export type Reply =
  | { status: number; headers?: Record<string, string>; body?: string | object }
  | { hang: true }
  | { drop: true };

export interface Fixture {
  url: string;
  port: number;
  /** The answer to every following request. */
  reply(next: Reply): void;
  /** Requests received so far (method and path). */
  readonly requests: string[];
  close(): Promise<void>;
}

/** A node:http server on 127.0.0.1 and a random port that answers as scripted. */
export async function startFixture(): Promise<Fixture> {
  let current: Reply = { status: 200, body: {} };
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    requests.push(`${request.method} ${request.url}`);
    request.resume();
    request.on('end', () => {
      const answer = current;
      if ('hang' in answer) return;
      if ('drop' in answer) {
        request.socket.destroy();
        return;
      }
      const body =
        typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? {});
      response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      response.end(body);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    reply: (next) => {
      current = next;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A port that was just free: bind it, then close it, so a connection there is refused. */
export async function closedPort(): Promise<number> {
  const server = createTcpServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The error `run` rejects with; fails the test when it resolves. */
export async function rejection(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** [class without a hint, class with `sideEffects: true`, code]. */
export function classesOf(error: unknown): [string, string, string] {
  const plain = classifyFailure(error);
  return [
    plain.failureClass,
    classifyFailure(error, { sideEffects: true }).failureClass,
    plain.code,
  ];
}
