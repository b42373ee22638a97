import { Agent, run, tool as sdkTool } from '@openai/agents';
import { text, toolCall } from '@recourse/testing';
import { afterEach, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { callContext, createRecovery, type RecoveryEvent } from './index.js';
import { useAgentsHarness } from './test-support/agents.js';
import { policies } from './test-support/policies.js';
import { postRefund } from './test-support/services.js';

const harness = useAgentsHarness();
const { services } = harness;
const refund = { paymentId: 'p-42', amount: 100 };
afterEach(() => vi.restoreAllMocks());

function refundTool(errorFunction?: null) {
  return sdkTool({
    name: 'refund_payment',
    description: 'Refund a payment',
    parameters: z.object({ paymentId: z.string(), amount: z.number() }),
    ...(errorFunction === null ? { errorFunction } : {}),
    execute: (input) => postRefund(services, input, callContext().idempotencyKey),
  });
}

function setUp(made: ReturnType<typeof refundTool>) {
  const events: RecoveryEvent[] = [];
  const recovery = createRecovery({
    runId: 'run-5',
    policies: { refund_payment: policies.refund_payment ?? {} },
    onEvent: (event) => events.push(event),
  });
  const agent = new Agent({
    name: 'payments',
    model: 'gpt-4o',
    tools: recovery.tools([made]),
    toolUseBehavior: recovery.toolUseBehavior,
  });
  return { recovery, agent, events };
}

it("a tool with the SDK's default error function: said once (event, console line), its fixed sentence is a failure of unknown cause", async () => {
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
  const { recovery, agent, events } = setUp(refundTool());
  services.loseNextResponse = true;
  harness.script([
    toolCall('refund_payment', refund),
    toolCall('refund_payment', refund),
    text('ok'),
  ]);
  await run(agent, 'Refund p-42');

  // Not a success: a write that failed for a hidden reason is in doubt, reconciled, not re-sent.
  expect(services.refunds).toHaveLength(1);
  expect(harness.toolOutputs()).toEqual([
    ['call_1', 'refunded'],
    ['call_2', 'refunded'],
  ]);
  expect(events.filter((event) => event.type === 'tool.failures-hidden')).toMatchObject([
    { tool: 'refund_payment' },
  ]);
  expect(
    warn.mock.calls.filter(([line]) => String(line).includes('hides its failures')),
  ).toHaveLength(1);
  expect(recovery.outcome().recoveries).toMatchObject([{ code: 'UNKNOWN', action: 'RECONCILE' }]);
});

it('a tool made with errorFunction: null is taken as it is: its real error is classified', async () => {
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
  const { recovery, agent, events } = setUp(refundTool(null));
  services.loseNextResponse = true;
  harness.script([toolCall('refund_payment', refund), text('ok')]);
  await run(agent, 'Refund p-42');

  expect(services.refunds).toHaveLength(1);
  expect(recovery.outcome().recoveries).toMatchObject([{ code: 'TIMEOUT', action: 'RECONCILE' }]);
  expect(events.some((event) => event.type === 'tool.failures-hidden')).toBe(false);
  expect(warn.mock.calls.filter(([line]) => String(line).includes('hides its failures'))).toEqual(
    [],
  );
});
