import { callContext, type ToolPolicy } from '@recourse/core';
import { scriptedProviderServer, text, toolCall } from '@recourse/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRecovery } from './index.js';
import {
  contractFor,
  createClient,
  createPayments,
  modes,
  type Payments,
  runLoop,
  unansweredInRun,
} from './test-support/harness.js';

const running = scriptedProviderServer();
const { provider } = running;
beforeAll(running.start);
afterAll(running.stop);
beforeEach(() => provider.reset());

const refundArgs = { paymentId: 'p-42', amount: 100 };
const script = () => [
  toolCall('refund_payment', refundArgs), // the write times out after it landed
  toolCall('refund_payment', refundArgs), // the model asks again, with a new call id
  text('Refunded.'),
];

function setUp(payments: Payments, policy: ToolPolicy) {
  const recovery = createRecovery({
    runId: 'run-1842',
    retry: { baseDelayMs: 0 }, // no backoff waits
    policies: { refund_payment: { sideEffects: true, ...policy } },
  });
  const tools = recovery.tools({
    refund_payment: {
      description: 'Refund a payment',
      inputSchema: z.object({ paymentId: z.string(), amount: z.number() }),
      execute: async (input) => payments.refund(input, callContext().idempotencyKey),
    },
  });
  return { recovery, tools };
}

describe.each(modes)('exactly one refund ($api, stream: $stream)', (mode) => {
  it('with reconcile: asks the downstream instead of re-sending, and dedupes the repeat', async () => {
    const payments = createPayments({ dedupe: false });
    const { recovery, tools } = setUp(payments, {
      reconcile: async (_input, { idempotencyKey }) =>
        payments.findByKey(idempotencyKey)
          ? { happened: true, result: 'refunded' }
          : { happened: false },
    });
    provider.reset(script());
    const result = await runLoop(recovery, createClient(provider), mode, tools, 'Refund p-42');

    expect(payments.writes).toHaveLength(1);
    expect(payments.requests).toHaveLength(1);
    expect(result.outcome.status).toBe('COMPLETED');
    expect(result.text).toBe('Refunded.');
    expect(provider.toolResults().map((r) => [r.callId, r.output])).toEqual([
      ['call_1', 'refunded'],
      ['call_2', 'refunded'],
    ]);
    expect(unansweredInRun(provider, result)).toEqual([]);
  });

  it('with idempotent: true: replays behind the same key, the downstream applies once', async () => {
    const payments = createPayments({ dedupe: true });
    const { recovery, tools } = setUp(payments, { idempotent: true });
    provider.reset(script());
    const result = await runLoop(recovery, createClient(provider), mode, tools, 'Refund p-42');

    expect(payments.writes).toHaveLength(1);
    expect(payments.requests.length).toBe(2); // the lost attempt and its replay
    expect(new Set(payments.requests.map((r) => r.key)).size).toBe(1);
    expect(result.outcome.status).toBe('COMPLETED');
    expect(provider.toolResults().map((r) => r.output)).toEqual(['refunded p-42', 'refunded p-42']);
  });

  it('with neither: does not re-send, the run ends FAILED with RECONCILE_BY_HAND', async () => {
    const payments = createPayments({ dedupe: false });
    const { recovery, tools } = setUp(payments, {});
    provider.reset(script());
    const result = await runLoop(recovery, createClient(provider), mode, tools, 'Refund p-42');

    expect(payments.writes).toHaveLength(1);
    expect(payments.requests).toHaveLength(1);
    expect(result.outcome).toMatchObject({
      status: 'FAILED',
      reason: 'RECONCILE_BY_HAND',
      needs_reconciliation: [
        { tool: 'refund_payment', idempotency_key: payments.requests[0]!.key },
      ],
    });
    // The loop stopped: the model was not asked again, and the failed call was answered.
    expect(provider.requests).toHaveLength(1);
    expect(provider.remaining()).toBe(2);
    expect(result.steps).toBe(1);
    expect(unansweredInRun(provider, result)).toEqual([]);
    const contract = contractFor(result.conversation, 'call_1');
    expect(contract).toMatchObject({
      failure_class: 'UNKNOWN_OUTCOME',
      recommended_recovery: 'ABORT',
      retry_same_action: false,
      code: 'RECONCILE_BY_HAND',
    });
  });
});
