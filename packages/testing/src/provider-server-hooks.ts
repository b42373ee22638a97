import type { SetupServer } from 'msw/node';
import { type ProviderServerOptions, startProviderServer } from './provider-server.js';
import {
  createScriptedProvider,
  type ScriptEntry,
  type ScriptedProvider,
  type ScriptedProviderOptions,
} from './scripted-provider.js';

/** A scripted provider and the msw server that serves it, started and stopped by the caller. */
export interface ScriptedProviderServer {
  readonly provider: ScriptedProvider;
  /** msw's server while started (to add a downstream's handlers); throws before `start`. */
  readonly server: SetupServer;
  /** Starts msw; pass it to `beforeAll` (a client that captures `fetch` is built after it). */
  start(): void;
  /** Stops msw and restores `fetch`; pass it to `afterAll`. */
  stop(): void;
  /** Between tests: the provider's script (as `provider.reset`) and msw's per-test handlers. */
  reset(script?: readonly ScriptEntry[]): void;
}

/**
 * The setup every adapter's test file shares: `beforeAll(s.start); afterAll(s.stop)`.
 * The hooks are the caller's, so this package needs no test runner.
 */
export function scriptedProviderServer(
  options: ScriptedProviderOptions & ProviderServerOptions = {},
): ScriptedProviderServer {
  const { otherHosts, ...providerOptions } = options;
  const provider = createScriptedProvider(providerOptions);
  let running: { server: SetupServer; close(): void } | undefined;
  return {
    provider,
    get server() {
      if (running === undefined) throw new Error('scriptedProviderServer: start() first');
      return running.server;
    },
    start() {
      running = startProviderServer(provider, { otherHosts });
    },
    stop() {
      running?.close();
      running = undefined;
    },
    reset(script) {
      provider.reset(script);
      running?.server.resetHandlers();
    },
  };
}
