import type { RecoveryEvent } from '@recourse/core';
import { createRecovery, type OpenAIRecoveryOptions } from '@recourse/openai';
import { text, toolCall } from '@recourse/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { refundArgs, refundSchema } from './agent.js';
import { type LedgerLocation, ledgerKinds } from './ledgers.js';
import { findRefund, postRefund } from './payments-service.js';
import { contractOf, useMistakesServer } from './use-mistakes-server.js';

const { provider, payments, openai } = useMistakesServer();
const kinds = await ledgerKinds();

describe.each(kinds)('$name ledger, OpenAI adapter: one refund per mistake', (kind) => {
  let location: LedgerLocation;
  let events: RecoveryEvent[];
  beforeEach(() => {
    location = kind.create();
    events = [];
  });
  afterEach(() => location.drop());

  async function refundRun(options: Partial<OpenAIRecoveryOptions> = {}) {
    provider.reset([toolCall('refund_payment', refundArgs), text('Refunded.')]);
    const recovery = createRecovery({
      runId: 'run-1842',
      ledger: await location.open(),
      onEvent: (event) => events.push(event),
      warn: false,
      ...options,
    });
    const tools = recovery.tools({
      refund_payment: {
        description: 'Refund a payment',
        inputSchema: refundSchema,
        execute: (input, { idempotencyKey, signal }) => postRefund(input, idempotencyKey, signal),
      },
    });
    const result = await recovery.runChat(openai(), {
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Refund p-42' }],
      tools,
    });
    // The loop answers every call, also the one after which it stopped.
    const answer = result.messages.find((m) => m.role === 'tool');
    return { outcome: result.outcome, output: String(answer?.content ?? '') };
  }

  it('a write tool the user forgot to declare: a 504 after the write is not re-sent', async () => {
    payments.script('applied-then-504');
    const first = await refundRun();
    expect(contractOf(first.output)).toMatchObject({
      failure_class: 'UNKNOWN_OUTCOME',
      code: 'RECONCILE_BY_HAND',
    });
    expect(first.outcome).toMatchObject({
      status: 'FAILED',
      needs_reconciliation: [expect.any(Object)],
    });
    const again = await refundRun();
    expect(contractOf(again.output)).toMatchObject({ retry_same_action: false });
    expect(payments.requests).toHaveLength(1);
    expect(payments.applied).toHaveLength(1);
  });

  it('a reconcile returning true: RECONCILE_FAILED, never re-sent', async () => {
    const policies = {
      refund_payment: {
        sideEffects: true,
        reconcile: (async (_i: unknown, { idempotencyKey }: { idempotencyKey: string }) =>
          Boolean(await findRefund(idempotencyKey))) as never,
      },
    };
    payments.script('applied-then-504');
    expect(contractOf((await refundRun({ policies })).output)).toMatchObject({
      code: 'RECONCILE_FAILED',
    });
    expect(contractOf((await refundRun({ policies })).output)).toMatchObject({
      code: 'RECONCILE_FAILED',
    });
    expect(payments.applied).toHaveLength(1);
  });

  it('a policy keyed by a misspelt tool name: policy.unused, and the undeclared tool is not re-sent', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const policies = { refund_paymnet: { sideEffects: true, idempotent: true } };
      payments.script('applied-then-500');
      await refundRun({ policies, warn: true });
      await refundRun({ policies });
      expect(events.filter((e) => e.type === 'policy.unused')).toEqual([
        expect.objectContaining({ tool: 'refund_paymnet', suggestion: 'refund_payment' }),
        expect.objectContaining({ tool: 'refund_paymnet', suggestion: 'refund_payment' }),
      ]);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(payments.requests).toHaveLength(1);
      expect(payments.applied).toHaveLength(1);
    } finally {
      warn.mockRestore();
    }
  });
});
