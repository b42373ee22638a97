import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import {
  connectionClosedCode,
  errorResponse,
  isErrorResponse,
  isNotification,
  isRequest,
  isResult,
} from './jsonrpc.js';
import { UpstreamClosedError, UpstreamJsonRpcError } from './upstream-errors.js';
import { watchHttpStreams } from './watch-http-streams.js';

/** Where the upstream MCP server is: a command to start (stdio) or a URL (streamable HTTP). */
export type UpstreamSpec =
  | { command: string; args?: readonly string[] | undefined; cwd?: string | undefined }
  | { url: string };

export interface UpstreamLinkOptions {
  upstream: UpstreamSpec;
  /** A message from the upstream for the client (its notifications, requests, answers). */
  deliver: (message: JSONRPCMessage) => void;
  /** One line for the trace (a restart, a death). */
  report: (line: string) => void;
  now: () => number;
  /** Headers of the client's latest HTTP request to pass upstream (its authorization). */
  passHeaders?: (() => Record<string, string> | undefined) | undefined;
  /** A stdio upstream's stderr. Default 'inherit'. */
  stderr?: 'inherit' | 'ignore' | undefined;
}

interface Pending {
  resolve: (result: Record<string, unknown>) => void;
  reject: (error: Error) => void;
}

/** No restart sooner than this after the nth death in a row (the first restart is at once). */
export function restartDelayMs(deaths: number): number {
  return deaths <= 1 ? 0 : Math.min(200 * 4 ** (deaths - 2), 10_000);
}

/**
 * One connection to the upstream server. The client's messages are forwarded as they came
 * (ids, `_meta`, every field); the proxy's own requests carry ids of their own. A stdio
 * upstream that dies is started again on the next message, re-initialised with the
 * client's own `initialize` parameters, no sooner than `restartDelayMs` after its death.
 */
export class UpstreamLink {
  readonly #options: UpstreamLinkOptions;
  #transport: Transport | undefined;
  #starting: Promise<void> | undefined;
  #initialize: { params: unknown; initialized: boolean } | undefined;
  #initializeId: RequestId | undefined;
  readonly #pending = new Map<RequestId, Pending>();
  readonly #forwarded = new Set<RequestId>();
  #nextId = 0;
  #deaths = 0;
  #diedAt = 0;
  #closed = false;

  constructor(options: UpstreamLinkOptions) {
    this.#options = options;
  }

  /** A message from the client, sent upstream as it is. */
  async forward(message: JSONRPCMessage): Promise<void> {
    if (isRequest(message) && message.method === 'initialize') {
      this.#initialize = { params: message.params, initialized: false };
      this.#initializeId = message.id;
    } else if (isNotification(message) && message.method === 'notifications/initialized') {
      if (this.#initialize) this.#initialize.initialized = true;
    }
    let transport: Transport;
    try {
      transport = await this.#open(message);
    } catch (error) {
      if (isRequest(message)) {
        this.#options.deliver(errorResponse(message.id, connectionClosedCode, messageOf(error)));
      }
      return;
    }
    if (isRequest(message)) this.#forwarded.add(message.id);
    try {
      await transport.send(message);
    } catch (error) {
      if (isRequest(message) && this.#forwarded.delete(message.id)) {
        this.#options.deliver(errorResponse(message.id, connectionClosedCode, messageOf(error)));
      }
    }
  }

  /** The proxy's own request: resolves to the result, rejects with what went wrong. */
  async request(
    method: string,
    params: Record<string, unknown> | undefined,
    signal?: AbortSignal | undefined,
  ): Promise<Record<string, unknown>> {
    const transport = await this.#open(undefined);
    const id = `recourse-${++this.#nextId}`;
    const answer = new Promise<Record<string, unknown>>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
    });
    const onAbort = () => {
      if (!this.#pending.delete(id)) return;
      void transport
        .send({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: id, reason: String(signal?.reason ?? 'cancelled') },
        })
        .catch(() => undefined);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await transport.send({
        jsonrpc: '2.0',
        id,
        method,
        ...(params === undefined ? {} : { params }),
      } as JSONRPCMessage);
    } catch (error) {
      this.#pending.delete(id);
      signal?.removeEventListener('abort', onAbort);
      // An HTTP request that never connected was not sent; anything else may have been.
      throw asError(error);
    }
    if (signal) {
      const aborted = new Promise<never>((_, reject) => {
        if (signal.aborted) reject(signal.reason);
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
      try {
        return await Promise.race([answer, aborted]);
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    }
    return answer;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const transport = this.#transport;
    this.#transport = undefined;
    await transport?.close();
  }

  /** The open transport, started (again) when needed. `cause`: the client message that asks. */
  async #open(cause: JSONRPCMessage | undefined): Promise<Transport> {
    if (this.#closed) throw new UpstreamClosedError(false, 'the proxy is closing');
    while (!this.#transport || this.#starting) {
      if (this.#starting) {
        await this.#starting;
        continue;
      }
      const wait = this.#diedAt + restartDelayMs(this.#deaths) - this.#options.now();
      if (this.#deaths > 0 && wait > 0) {
        throw new UpstreamClosedError(false, `the upstream died; restarting in ${wait} ms`);
      }
      const restart = this.#deaths > 0;
      this.#starting = this.#start(restart && !isInitialize(cause));
      try {
        await this.#starting;
      } finally {
        this.#starting = undefined;
      }
    }
    return this.#transport;
  }

  async #start(reinitialize: boolean): Promise<void> {
    const upstream = this.#options.upstream;
    const transport = 'url' in upstream ? this.#httpTransport(upstream.url) : stdio(this.#options);
    transport.onmessage = (message) => this.#receive(message);
    transport.onclose = () => this.#died(transport);
    transport.onerror = () => undefined;
    try {
      await transport.start();
    } catch (error) {
      this.#deaths += 1;
      this.#diedAt = this.#options.now();
      throw new UpstreamClosedError(false, `the upstream did not start: ${messageOf(error)}`);
    }
    this.#transport = transport;
    if (this.#deaths > 0) this.#options.report(`upstream started again (death ${this.#deaths})`);
    if (reinitialize && this.#initialize) {
      const { params, initialized } = this.#initialize;
      const result = await this.#requestOn(transport, 'initialize', params);
      setProtocolVersion(transport, result);
      if (initialized) {
        await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      }
    }
  }

  #httpTransport(url: string): Transport {
    const pass = this.#options.passHeaders;
    const withHeaders: FetchLike = async (input, init) => {
      const extra = pass?.();
      if (!extra) return fetch(input, init);
      const headers = new Headers(init?.headers);
      for (const [name, value] of Object.entries(extra)) headers.set(name, value);
      return fetch(input, { ...init, headers });
    };
    return new StreamableHTTPClientTransport(new URL(url), {
      fetch: watchHttpStreams(withHeaders, (ids, resumable) => {
        // After the transport has read what the stream carried.
        if (!resumable) setImmediate(() => this.#streamLost(ids));
      }),
    });
  }

  /** Requests whose response stream ended without their answer: lost, as MCP says. */
  #streamLost(ids: readonly RequestId[]): void {
    for (const id of ids) {
      const own = this.#pending.get(id);
      if (own) {
        this.#pending.delete(id);
        own.reject(new UpstreamClosedError(true, 'the response stream broke before the answer'));
      } else if (this.#forwarded.delete(id)) {
        this.#options.deliver(errorResponse(id, connectionClosedCode, 'the response stream broke'));
      }
    }
  }

  async #requestOn(
    transport: Transport,
    method: string,
    params: unknown,
  ): Promise<Record<string, unknown>> {
    const id = `recourse-${++this.#nextId}`;
    const answer = new Promise<Record<string, unknown>>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
    });
    await transport.send({ jsonrpc: '2.0', id, method, params } as JSONRPCMessage);
    return answer;
  }

  #receive(message: JSONRPCMessage): void {
    if (isResult(message) || isErrorResponse(message)) {
      const id = message.id;
      const own = id === undefined ? undefined : this.#pending.get(id);
      if (own && id !== undefined) {
        this.#pending.delete(id);
        if (isResult(message)) own.resolve(message.result as Record<string, unknown>);
        else own.reject(new UpstreamJsonRpcError(message.error));
        return;
      }
      if (id !== undefined) this.#forwarded.delete(id);
      if (id !== undefined && id === this.#initializeId && isResult(message)) {
        this.#initializeId = undefined;
        if (this.#transport) setProtocolVersion(this.#transport, message.result);
      }
      // A successful exchange: the next death starts its backoff from zero again.
      this.#deaths = 0;
    }
    this.#options.deliver(message);
  }

  #died(transport: Transport): void {
    if (this.#transport !== transport) return;
    this.#transport = undefined;
    if (this.#closed) return;
    this.#deaths += 1;
    this.#diedAt = this.#options.now();
    this.#options.report('upstream closed; it is started again on the next request');
    for (const [id, pending] of this.#pending) {
      this.#pending.delete(id);
      pending.reject(
        new UpstreamClosedError(true, 'the upstream closed with the request in flight'),
      );
    }
    for (const id of this.#forwarded) {
      this.#options.deliver(errorResponse(id, connectionClosedCode, 'the upstream closed'));
    }
    this.#forwarded.clear();
  }
}

function stdio(options: UpstreamLinkOptions): Transport {
  const upstream = options.upstream as Extract<UpstreamSpec, { command: string }>;
  // The proxy's own environment goes to the upstream (its PATH, tokens, configuration).
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] => entry[1] !== undefined,
    ),
  );
  return new StdioClientTransport({
    command: upstream.command,
    args: [...(upstream.args ?? [])],
    env,
    stderr: options.stderr ?? 'inherit',
    ...(upstream.cwd === undefined ? {} : { cwd: upstream.cwd }),
  });
}

function setProtocolVersion(transport: Transport, result: unknown): void {
  const version = (result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
  if (typeof version === 'string') transport.setProtocolVersion?.(version);
}

function isInitialize(message: JSONRPCMessage | undefined): boolean {
  return message !== undefined && isRequest(message) && message.method === 'initialize';
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
