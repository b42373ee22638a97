import { type AnyHandler, http, passthrough } from 'msw';
import { type SetupServer, setupServer } from 'msw/node';
import type { ScriptedProvider } from './scripted-provider.js';

export interface ProviderServer {
  readonly server: SetupServer;
  /** Stops intercepting and restores `fetch`. */
  close(): void;
}

export interface ProviderServerOptions {
  /**
   * What happens to a request no handler matches, to a host other than the provider's:
   * - `'local'` (default): a request to this machine (`localhost`, `127.0.0.0/8`, `::1`)
   *   goes through, so a tool under test can call a local test server; any other host fails,
   *   so a test cannot reach the real network by accident;
   * - `'bypass'`: every other host goes through;
   * - `'error'`: every unhandled request fails.
   * A request to the provider's own host that no handler matches always fails.
   */
  otherHosts?: 'local' | 'bypass' | 'error' | undefined;
}

const otherHostsValues = ['local', 'bypass', 'error'];

/**
 * Starts msw in this process with the provider's handlers. A request to the provider's
 * host (its `baseURL`; for a handler list, the hosts its handlers name) that no handler
 * matches fails instead of reaching the real network; so does one to another host, except
 * this machine's (a local test server a tool calls), as `otherHosts` says.
 */
export function startProviderServer(
  source: ScriptedProvider | readonly AnyHandler[],
  options: ProviderServerOptions = {},
): ProviderServer {
  const handlers = isHandlerList(source) ? source : source.handlers;
  const providerOrigins = new Set(
    isHandlerList(source) ? handlers.flatMap(handlerOrigin) : [new URL(source.baseURL).origin],
  );
  const otherHosts = options.otherHosts ?? 'local';
  if (!otherHostsValues.includes(otherHosts)) {
    throw new TypeError(
      `startProviderServer: otherHosts must be 'local', 'bypass' or 'error', got ${String(otherHosts)}`,
    );
  }
  const passes = (url: URL) =>
    !providerOrigins.has(url.origin) &&
    (otherHosts === 'bypass' || (otherHosts === 'local' && isThisMachine(url)));
  // Last, after every handler: the requests that may go through, through. Anything else no
  // handler answers is refused by msw's 'error' strategy (the client sees a network error).
  const letThrough = http.all(
    ({ request }) => passes(new URL(request.url)),
    () => passthrough(),
  );
  const server = setupServer(...handlers, letThrough);
  server.listen({ onUnhandledFrame: 'error' });
  return { server, close: () => server.close() };
}

function isHandlerList(
  source: ScriptedProvider | readonly AnyHandler[],
): source is readonly AnyHandler[] {
  return Array.isArray(source);
}

/** The origin an HTTP handler's absolute path names (none for a relative path or a RegExp). */
function handlerOrigin(handler: AnyHandler): string[] {
  const path = (handler as { info?: { path?: unknown } }).info?.path;
  if (typeof path !== 'string') return [];
  try {
    return [new URL(path).origin];
  } catch {
    return [];
  }
}

function isThisMachine(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '::1' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
  );
}
