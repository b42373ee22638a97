import type { AnyHandler } from 'msw';
import { type SetupServer, setupServer } from 'msw/node';
import type { ScriptedProvider } from './scripted-provider.js';

export interface ProviderServer {
  readonly server: SetupServer;
  /** Stops intercepting and restores `fetch`. */
  close(): void;
}

/**
 * Starts msw in this process with the provider's handlers. A request no handler matches
 * fails (`onUnhandledFrame: 'error'`) instead of reaching the real network.
 */
export function startProviderServer(
  source: ScriptedProvider | readonly AnyHandler[],
): ProviderServer {
  const handlers = isHandlerList(source) ? source : source.handlers;
  const server = setupServer(...handlers);
  server.listen({ onUnhandledFrame: 'error' });
  return { server, close: () => server.close() };
}

function isHandlerList(
  source: ScriptedProvider | readonly AnyHandler[],
): source is readonly AnyHandler[] {
  return Array.isArray(source);
}
