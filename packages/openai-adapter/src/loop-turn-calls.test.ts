// The calls of one response, in both APIs, plain and streaming: handed to the runtime as one
// turn, so unrelated reads overlap while a denial stops the later writes and the calls that
// reach what was denied. In-flight counts and the downstream's own record, never times.
import {
  createScriptedProvider,
  type ProviderServer,
  startProviderServer,
  text,
  toolCall,
} from '@recourse/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTurnShop, turnPolicies } from '../../ai-sdk-adapter/test-support/turn-shop.js';
import { createRecovery } from './index.js';
import {
  contractFor,
  createClient,
  modes,
  outputFor,
  runLoop,
  unansweredInRun,
} from './test-support/harness.js';

const provider = createScriptedProvider();
let running: ProviderServer;
beforeAll(() => {
  running = startProviderServer(provider);
});
afterAll(() => running.close());
beforeEach(() => {
  provider.reset();
  running.server.resetHandlers();
});

function setUp(options: { onDenial?: 'continue'; parallelWrites?: boolean } = {}) {
  const shop = createTurnShop();
  running.server.use(...shop.handlers);
  const recovery = createRecovery({ runId: 'run-turn', policies: turnPolicies, ...options });
  const { tools: t } = shop;
  const tools = recovery.tools({
    refund_payment: { description: 'Refund a payment', ...t.refund_payment },
    get_payment: { description: 'Read a payment', ...t.get_payment },
    send_email: { description: 'Send an email', ...t.send_email },
    read_file: { description: 'Read a file', ...t.read_file },
    shell: { description: 'Run a shell command', ...t.shell },
  });
  return { shop, recovery, tools };
}

describe.each(modes)('calls of one turn ($api, stream: $stream)', (mode) => {
  const run = (setup: ReturnType<typeof setUp>, prompt: string) =>
    runLoop(setup.recovery, createClient(provider), mode, setup.tools, prompt, 3);

  it('a denial refuses the later write and the overlapping read of its turn; they never run', async () => {
    provider.reset([
      [
        toolCall('refund_payment', { paymentId: 'p-1' }, { id: 'refund' }),
        toolCall('send_email', { to: 'customer@example.test' }, { id: 'email' }),
        toolCall('get_payment', { paymentId: 'p-1' }, { id: 'payment' }),
        toolCall('read_file', { path: '/srv/app/README.md' }, { id: 'readme' }),
      ],
      text('we refunded you'),
    ]);
    const setup = setUp();
    const result = await run(setup, 'Refund p-1 and tell the customer');

    expect(setup.shop.requests.sort()).toEqual(['file /srv/app/README.md', 'refund p-1']);
    expect(contractFor(result.conversation, 'email')).toMatchObject({
      code: 'RUN_STOPPED',
      retry_same_action: false,
    });
    expect(contractFor(result.conversation, 'payment')).toMatchObject({
      code: 'DENIED_EARLIER',
      resource: 'payment:p-1',
    });
    expect(outputFor(result.conversation, 'readme')).toBe('contents of /srv/app/README.md');
    expect(result.outcome.status).toBe('BLOCKED');
    expect(result.steps).toBe(1);
    expect(unansweredInRun(provider, result)).toEqual([]);
  });

  it('unrelated reads of a turn run side by side', async () => {
    provider.reset([
      [
        toolCall('read_file', { path: '/srv/app/a.txt' }),
        toolCall('read_file', { path: '/srv/app/b.txt' }),
        toolCall('get_payment', { paymentId: 'p-2' }),
      ],
      text('done'),
    ]);
    const setup = setUp();
    const result = await run(setup, 'Read them');
    expect(setup.shop.counts.maxInFlight).toBe(3);
    expect(result.outcome.status).toBe('COMPLETED');
  });

  it('parallelWrites: writes of a turn run side by side; what overlaps a denial still waits', async () => {
    provider.reset([
      [
        toolCall('refund_payment', { paymentId: 'p-1' }),
        toolCall('send_email', { to: 'customer@example.test' }),
        toolCall('get_payment', { paymentId: 'p-1' }),
      ],
      text('done'),
    ]);
    const setup = setUp({ parallelWrites: true });
    await run(setup, 'Refund p-1 and tell the customer');
    expect(setup.shop.counts.maxInFlight).toBe(2);
    expect(setup.shop.requests).toContain('email customer@example.test');
    expect(setup.shop.requests).not.toContain('payment p-1');
  });
});

describe('calls of one turn, onDenial continue', () => {
  it('the bypass in the same turn is refused; the unrelated read and the write run', async () => {
    provider.reset([
      [
        toolCall('read_file', { path: '/srv/app/.env' }),
        toolCall('shell', { command: 'cat /srv/app/.env' }, { id: 'bypass' }),
        toolCall('read_file', { path: '/srv/app/README.md' }),
        toolCall('send_email', { to: 'ops@example.test' }),
      ],
      text('done'),
    ]);
    const setup = setUp({ onDenial: 'continue' });
    const result = await runLoop(
      setup.recovery,
      createClient(provider),
      modes[0],
      setup.tools,
      'Read the config',
      3,
    );
    expect(setup.shop.requests.filter((r) => r === 'file /srv/app/.env')).toHaveLength(1);
    expect(setup.shop.requests).toContain('file /srv/app/README.md');
    expect(setup.shop.requests).toContain('email ops@example.test');
    expect(contractFor(result.conversation, 'bypass')).toMatchObject({
      code: 'DENIED_EARLIER',
      resource: 'file:///srv/app/.env',
    });
  });
});
