import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { Resolver } from 'node:dns/promises';
import { once } from 'node:events';
import { connect, createServer, type LookupFunction, type Server, type Socket } from 'node:net';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { classifyFailure } from './classify-failure.js';

const servers: Server[] = [];
const sockets: Socket[] = [];
const udpServers: UdpSocket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const server of udpServers.splice(0)) server.close();
  await Promise.all(
    servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))),
  );
});

async function listen(onConnection: (socket: Socket) => void): Promise<number> {
  const server = createServer((socket) => {
    sockets.push(socket);
    onConnection(socket);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/**
 * A UDP DNS server on a free local port that answers every query NXDOMAIN (RFC 1035: the
 * query's id and question, QR and RA set, RCODE 3).
 */
async function nxdomainServer(): Promise<number> {
  const server = createSocket('udp4');
  server.on('message', (query, peer) => {
    let end = 12;
    while (end < query.length && query[end] !== 0) end += (query[end] ?? 0) + 1;
    const question = query.subarray(12, end + 5); // the name, its zero byte, type and class
    const header = Buffer.from([0, 0, 0x81, 0x83, 0, 1, 0, 0, 0, 0, 0, 0]);
    query.copy(header, 0, 0, 2);
    server.send(Buffer.concat([header, question]), peer.port, peer.address);
  });
  server.bind(0, '127.0.0.1');
  await once(server, 'listening');
  udpServers.push(server);
  return server.address().port;
}

/** A port that was just free: bind it, then close the server. */
async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  await new Promise((resolve) => server.close(resolve));
  return address.port;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('classifyFailure on real network failures (undici fetch)', () => {
  it('connection refused is TRANSIENT even with side effects: nothing was sent', async () => {
    const port = await closedPort();
    const error = await rejection(fetch(`http://127.0.0.1:${port}/`, { method: 'POST' }));
    expect((error as Error).message).toBe('fetch failed');
    expect(classifyFailure(error)).toMatchObject({
      failureClass: 'TRANSIENT',
      code: 'CONNECTION_REFUSED',
    });
    expect(classifyFailure(error, { sideEffects: true }).failureClass).toBe('TRANSIENT');
  });

  it('a socket destroyed after accepting is a reset: UNKNOWN_OUTCOME with side effects', async () => {
    const port = await listen((socket) => {
      socket.once('data', () => socket.destroy());
    });
    const error = await rejection(
      fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: 'x' }),
    );
    const result = classifyFailure(error);
    expect(result).toMatchObject({ failureClass: 'TRANSIENT', code: 'CONNECTION_RESET' });
    expect(classifyFailure(error, { sideEffects: true }).failureClass).toBe('UNKNOWN_OUTCOME');
  });

  it('a body cut off mid-response ("terminated") is a reset', async () => {
    const port = await listen((socket) => {
      socket.once('data', () => {
        socket.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\npartial');
        setImmediate(() => socket.destroy());
      });
    });
    const response = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: 'x' });
    const error = await rejection(response.text());
    expect((error as Error).message).toBe('terminated');
    expect(classifyFailure(error)).toMatchObject({
      failureClass: 'TRANSIENT',
      code: 'CONNECTION_RESET',
    });
    expect(classifyFailure(error, { sideEffects: true }).failureClass).toBe('UNKNOWN_OUTCOME');
  });

  it('a server that never answers, with AbortSignal.timeout, is a TIMEOUT', async () => {
    const port = await listen(() => {});
    const error = await rejection(
      fetch(`http://127.0.0.1:${port}/`, {
        method: 'POST',
        body: 'x',
        signal: AbortSignal.timeout(50),
      }),
    );
    expect((error as Error).name).toBe('TimeoutError');
    expect(classifyFailure(error)).toMatchObject({ failureClass: 'TRANSIENT', code: 'TIMEOUT' });
    expect(classifyFailure(error, { sideEffects: true }).failureClass).toBe('UNKNOWN_OUTCOME');
  });

  it('a DNS failure is TRANSIENT even with side effects', async () => {
    // The name is looked up by Node's resolver against a local DNS server that answers
    // NXDOMAIN: the same answer on every machine, whatever its own resolver does.
    const resolver = new Resolver({ timeout: 2_000, tries: 1 });
    resolver.setServers([`127.0.0.1:${await nxdomainServer()}`]);
    const lookup: LookupFunction = (hostname, options, callback) => {
      resolver.resolve4(hostname).then(
        ([address = '']) =>
          options.all ? callback(null, [{ address, family: 4 }]) : callback(null, address, 4),
        (error: NodeJS.ErrnoException) => callback(error, ''),
      );
    };
    const socket = connect({ host: 'nonexistent.invalid', port: 80, lookup });
    const [error] = (await once(socket, 'error').catch((e: unknown) => [e])) as [unknown];
    expect(error).toMatchObject({ code: 'ENOTFOUND', hostname: 'nonexistent.invalid' });
    expect(classifyFailure(error, { sideEffects: true })).toMatchObject({
      failureClass: 'TRANSIENT',
      code: 'DNS_FAILURE',
    });
  });

  it('an abort outside recourse is ABORTED, not a crash: PERMANENT for a read, in doubt for a write', async () => {
    const port = await listen(() => {});
    const controller = new AbortController();
    const pending = rejection(fetch(`http://127.0.0.1:${port}/`, { signal: controller.signal }));
    controller.abort();
    const error = await pending;
    expect((error as Error).name).toBe('AbortError');
    expect(classifyFailure(error)).toMatchObject({ failureClass: 'PERMANENT', code: 'ABORTED' });
    expect(classifyFailure(error, { sideEffects: true })).toMatchObject({
      failureClass: 'UNKNOWN_OUTCOME',
      code: 'ABORTED',
    });
  });
});

describe('classifyFailure on openai@7 connection failures', () => {
  it('APIConnectionError over ECONNREFUSED is CONNECTION_REFUSED', async () => {
    const port = await closedPort();
    const client = new OpenAI({
      apiKey: 'sk-test',
      baseURL: `http://127.0.0.1:${port}/v1`,
      maxRetries: 0,
    });
    const error = await rejection(client.models.list());
    expect(error).toBeInstanceOf(OpenAI.APIConnectionError);
    expect(classifyFailure(error, { sideEffects: true })).toMatchObject({
      failureClass: 'TRANSIENT',
      code: 'CONNECTION_REFUSED',
    });
  });

  it('APIConnectionTimeoutError is a TIMEOUT', async () => {
    const port = await listen(() => {});
    const client = new OpenAI({
      apiKey: 'sk-test',
      baseURL: `http://127.0.0.1:${port}/v1`,
      maxRetries: 0,
      timeout: 50,
    });
    const error = await rejection(client.models.list());
    expect(error).toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
    expect(classifyFailure(error)).toMatchObject({ failureClass: 'TRANSIENT', code: 'TIMEOUT' });
    expect(classifyFailure(error, { sideEffects: true }).failureClass).toBe('UNKNOWN_OUTCOME');
  });
});
