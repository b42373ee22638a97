import {
  createScriptedProvider,
  type ProviderServer,
  type ScriptedProvider,
  startProviderServer,
} from '@recourse/testing';
import { afterAll, beforeAll, beforeEach, vi } from 'vitest';
import { createSandboxDownstream } from './sandbox-downstream.js';

/**
 * One msw server for the file: the scripted model and the sandbox downstream. Anything else
 * fails the request (`onUnhandledFrame: 'error'`), so no test reaches the real network.
 * `GH_HOST` is cleared from this process for the file: gh's host is its default, github.com,
 * whatever the machine running the suite has set.
 */
export function useSandboxServer(): {
  provider: ScriptedProvider;
  downstream: ReturnType<typeof createSandboxDownstream>;
} {
  const provider = createScriptedProvider();
  const downstream = createSandboxDownstream();
  let running: ProviderServer | undefined;
  beforeAll(() => {
    vi.stubEnv('GH_HOST', undefined);
    running = startProviderServer([...provider.handlers, ...downstream.handlers]);
  });
  afterAll(() => {
    running?.close();
    vi.unstubAllEnvs();
  });
  beforeEach(() => {
    provider.reset([]);
    downstream.requests.length = 0;
  });
  return { provider, downstream };
}
