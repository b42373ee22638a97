import { createFakeClock } from '@recourse/core/testing';
import { httpError, scriptedProviderServer, streamError, text, toolCall } from '@recourse/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRecovery } from './index.js';
import { createClient, driveClock, modes, runLoop } from './test-support/harness.js';

const running = scriptedProviderServer();
const { provider } = running;
beforeAll(running.start);
afterAll(running.stop);
beforeEach(() => provider.reset());

function setUp() {
  const clock = createFakeClock(1_000_000);
  const recovery = createRecovery({ runId: 'run-m', clock });
  const tools = recovery.tools({
    echo: { inputSchema: z.object({ text: z.string() }), execute: (input) => input.text },
  });
  return { clock, recovery, tools };
}

describe.each(modes)('model requests go through the policy ($api, stream: $stream)', (mode) => {
  it('a 429 is retried after its retry-after, then the run completes', async () => {
    const { clock, recovery, tools } = setUp();
    provider.reset([httpError(429, { retryAfter: 2 }), text('ok')]);
    const result = await driveClock(
      clock,
      runLoop(recovery, createClient(provider), mode, tools, 'hi'),
    );

    expect(result).toMatchObject({ text: 'ok', outcome: { status: 'COMPLETED' } });
    expect(provider.requests).toHaveLength(2);
    expect(clock.sleeps).toHaveLength(1);
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(2000);
  });

  it('a 401 ends the run FAILED without a retry', async () => {
    const { clock, recovery, tools } = setUp();
    provider.reset([httpError(401), text('never')]);
    const result = await driveClock(
      clock,
      runLoop(recovery, createClient(provider), mode, tools, 'hi'),
    );

    expect(result.outcome).toMatchObject({ status: 'FAILED', reason: 'MODEL_UNAVAILABLE' });
    expect(result.outcome.failures).toMatchObject([
      { tool: 'model', failure_class: 'AUTHORIZATION' },
    ]);
    expect(provider.requests).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it('insufficient_quota (a 429 that waiting does not fix) ends the run FAILED', async () => {
    const { clock, recovery, tools } = setUp();
    provider.reset([httpError(429, { code: 'insufficient_quota' }), text('never')]);
    const result = await driveClock(
      clock,
      runLoop(recovery, createClient(provider), mode, tools, 'hi'),
    );

    expect(result.outcome).toMatchObject({ status: 'FAILED', reason: 'MODEL_QUOTA_EXCEEDED' });
    expect(provider.requests).toHaveLength(1);
  });

  it('a server error (an error frame inside a 200 stream when streaming) is retried', async () => {
    const { clock, recovery, tools } = setUp();
    provider.reset([streamError({ text: 'partial', code: 'server_error' }), text('ok')]);
    const result = await driveClock(
      clock,
      runLoop(recovery, createClient(provider), mode, tools, 'hi'),
    );

    expect(result).toMatchObject({ text: 'ok', outcome: { status: 'COMPLETED' } });
    expect(provider.requests).toHaveLength(2);
  });
});

it('maxSteps ends the loop after that many model requests', async () => {
  const { recovery, tools } = setUp();
  provider.reset([toolCall('echo', { text: 'a' }), toolCall('echo', { text: 'b' }), text('never')]);
  const result = await runLoop(recovery, createClient(provider), modes[0], tools, 'hi', 2);
  expect(result.steps).toBe(2);
  expect(provider.remaining()).toBe(1);
});
