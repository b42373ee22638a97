import {
  createConsoleTrace,
  type Ledger,
  MemoryLedger,
  type RecoveryEvent,
  type ToolPolicy,
} from '@recourse/core';
import { createFakeClock } from '@recourse/core/testing';
import { scriptedProviderServer, text, toolCall } from '@recourse/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AnyRecoveryToolSet,
  createRecovery,
  type OpenAIRecovery,
  type OpenAIRecoveryOptions,
} from './index.js';
import {
  contractFor,
  createClient,
  driveClock,
  modes,
  outputFor,
  runLoop,
  unansweredInRun,
} from './test-support/harness.js';

const running = scriptedProviderServer();
const { provider } = running;
beforeAll(running.start);
afterAll(running.stop);
beforeEach(() => provider.reset());

const refundArgs = { paymentId: 'p-42', amount: 100 };
const refundSchema = z.object({ paymentId: z.string(), amount: z.number() });

/** A payments service: `first` decides what the first request does; later ones succeed. */
function createPayments(first: 'lose-response' | 'refuse' | 'ok' = 'lose-response') {
  const requests: string[] = [];
  const applied: string[] = [];
  return {
    requests,
    applied,
    refund(key: string): string {
      requests.push(key);
      if (requests.length === 1 && first === 'refuse') {
        throw Object.assign(new TypeError('fetch failed'), {
          cause: Object.assign(new Error('connect ECONNREFUSED 10.0.0.9:443'), {
            code: 'ECONNREFUSED',
          }),
        });
      }
      applied.push(key);
      if (requests.length === 1 && first === 'lose-response')
        throw new DOMException('The operation timed out.', 'TimeoutError');
      return 'refunded';
    },
  };
}

function refundLoop(
  payments: ReturnType<typeof createPayments>,
  options: Partial<OpenAIRecoveryOptions> & { ledger: Ledger },
) {
  const recovery = createRecovery({ runId: 'run-sd', retry: { baseDelayMs: 0 }, ...options });
  const tools = recovery.tools({
    refund_payment: {
      description: 'Refund a payment',
      inputSchema: refundSchema,
      execute: async (_input, { idempotencyKey }) => payments.refund(idempotencyKey),
    },
  });
  return { recovery, tools };
}

describe.each(modes)('safe by default ($api, stream: $stream)', (mode) => {
  const run = async (
    setup: { recovery: OpenAIRecovery; tools: AnyRecoveryToolSet },
    prompt = 'Refund p-42',
  ) => runLoop(setup.recovery, createClient(provider), mode, setup.tools, prompt);

  it('an undeclared tool may write: a lost response is not re-sent, in this run or after a restart', async () => {
    const payments = createPayments('lose-response');
    const ledger = new MemoryLedger();
    const events: RecoveryEvent[] = [];
    provider.reset([toolCall('refund_payment', refundArgs), text('Refunded.')]);
    const first = await run(refundLoop(payments, { ledger, onEvent: (e) => events.push(e) }));

    expect(payments.applied).toHaveLength(1);
    expect(contractFor(first.conversation, 'call_1')).toMatchObject({
      failure_class: 'UNKNOWN_OUTCOME',
      retry_same_action: false,
      code: 'RECONCILE_BY_HAND',
    });
    expect(first.outcome).toMatchObject({
      status: 'FAILED',
      needs_reconciliation: [{ tool: 'refund_payment', idempotency_key: payments.requests[0] }],
    });
    expect(events.filter((e) => e.type === 'policy.undeclared')).toHaveLength(1);
    expect(unansweredInRun(provider, first)).toEqual([]);

    // Restarted, the model asks for the same refund again: still in doubt, not sent.
    provider.reset([toolCall('refund_payment', refundArgs), text('Refunded.')]);
    const again = await run(refundLoop(payments, { ledger }));
    expect(payments.requests).toHaveLength(1);
    expect(contractFor(again.conversation, 'call_1')).toMatchObject({ retry_same_action: false });
  });

  it('an undeclared tool whose connection was refused is retried: nothing was sent', async () => {
    const payments = createPayments('refuse');
    provider.reset([toolCall('refund_payment', refundArgs), text('Refunded.')]);
    const result = await run(refundLoop(payments, { ledger: new MemoryLedger() }));
    expect(payments.requests).toHaveLength(2);
    expect(payments.applied).toHaveLength(1);
    expect(outputFor(result.conversation, 'call_1')).toBe('refunded');
    expect(result.outcome).toMatchObject({
      status: 'COMPLETED',
      recoveries: [{ tool: 'refund_payment', code: 'CONNECTION_REFUSED', action: 'RETRY' }],
    });
  });

  it.each([
    ['true', () => true],
    ['{ happend: true }', () => ({ happend: true })],
    [
      'a throw',
      () => {
        throw new Error('payments API down');
      },
    ],
  ])('reconcile answering %s → RECONCILE_FAILED, in doubt, never re-sent', async (_l, answer) => {
    const payments = createPayments('lose-response');
    const ledger = new MemoryLedger();
    const policies = {
      refund_payment: {
        sideEffects: true,
        reconcile: answer as unknown as ToolPolicy['reconcile'],
      },
    };
    provider.reset([toolCall('refund_payment', refundArgs), text('Refunded.')]);
    const result = await run(refundLoop(payments, { ledger, policies }));
    expect(contractFor(result.conversation, 'call_1')).toMatchObject({
      code: 'RECONCILE_FAILED',
      retry_same_action: false,
    });
    expect(result.outcome.needs_reconciliation).toEqual([
      { tool: 'refund_payment', idempotency_key: payments.requests[0], code: 'RECONCILE_FAILED' },
    ]);
    provider.reset([toolCall('refund_payment', refundArgs), text('Refunded.')]);
    await run(refundLoop(payments, { ledger, policies }));
    expect(payments.requests).toHaveLength(1);
    expect(payments.applied).toHaveLength(1);
  });

  it('a result JSON cannot hold: the model reads it, duplicates get RESULT_NOT_STORED, nothing runs twice', async () => {
    const ledger = new MemoryLedger();
    const executed: string[] = [];
    const events: RecoveryEvent[] = [];
    const setup = (onEvent?: (event: RecoveryEvent) => void) => {
      const recovery = createRecovery({
        runId: 'run-sd',
        ledger,
        policies: { refund_payment: { sideEffects: true } },
        ...(onEvent ? { onEvent } : {}),
      });
      const tools = recovery.tools({
        refund_payment: {
          inputSchema: refundSchema,
          execute: async (_input, { idempotencyKey }) => {
            executed.push(idempotencyKey);
            const refund: Record<string, unknown> = { id: 're_1', cents: 10_000n };
            refund.payment = { refund }; // and a cycle
            return refund;
          },
        },
      });
      return { recovery, tools };
    };
    provider.reset([toolCall('refund_payment', refundArgs), text('Refunded.')]);
    const first = await run(setup((e) => events.push(e)));
    expect(JSON.parse(outputFor(first.conversation, 'call_1'))).toEqual({
      id: 're_1',
      cents: '10000',
      payment: { refund: '[Circular]' },
    });
    expect(events.some((e) => e.type === 'result.unstorable')).toBe(true);

    provider.reset([toolCall('refund_payment', refundArgs), text('Refunded.')]);
    const again = await run(setup());
    expect(executed).toHaveLength(1);
    expect(contractFor(again.conversation, 'call_1')).toMatchObject({
      failure_class: 'UNKNOWN_OUTCOME',
      recommended_recovery: 'REOBSERVE',
      retry_same_action: false,
      code: 'RESULT_NOT_STORED',
    });
  });

  it('timeoutMs: a read that never settles is aborted and retried; a write that never settles is not re-sent', async () => {
    const clock = createFakeClock();
    const signals: (AbortSignal | undefined)[] = [];
    const charges: string[] = [];
    const recovery = createRecovery({
      runId: 'run-sd',
      clock,
      retry: { timeoutMs: 1_000 },
      policies: { get_order: { sideEffects: false }, charge_card: { sideEffects: true } },
    });
    const tools = recovery.tools({
      get_order: {
        inputSchema: z.object({ id: z.string() }),
        execute: async (_input, { signal }) => {
          signals.push(signal);
          return signals.length === 1 ? new Promise<string>(() => {}) : 'shipped';
        },
      },
      charge_card: {
        inputSchema: z.object({ id: z.string() }),
        execute: async (_input, { idempotencyKey }) => {
          charges.push(idempotencyKey);
          return new Promise<string>(() => {});
        },
      },
    });
    provider.reset([
      toolCall('get_order', { id: 'o-1' }),
      toolCall('charge_card', { id: 'c-1' }),
      text('done'),
    ]);
    const result = await driveClock(
      clock,
      runLoop(recovery, createClient(provider), mode, tools, 'Order, then charge'),
    );
    expect(signals).toHaveLength(2);
    expect(signals[0]?.aborted).toBe(true);
    expect(outputFor(result.conversation, 'call_1')).toBe('shipped');
    expect(charges).toHaveLength(1);
    expect(contractFor(result.conversation, 'call_2')).toMatchObject({
      failure_class: 'UNKNOWN_OUTCOME',
      code: 'RECONCILE_BY_HAND',
    });
    expect(result.outcome.recoveries).toEqual([
      expect.objectContaining({ tool: 'get_order', code: 'TIMEOUT', action: 'RETRY' }),
    ]);
  });

  it('a poison step stays poison after a restart: the same input does not run', async () => {
    const ledger = new MemoryLedger();
    const ran: string[] = [];
    const setup = () => {
      const recovery = createRecovery({
        runId: 'run-sd',
        ledger,
        policies: { extract: { sideEffects: false } },
      });
      const tools = recovery.tools({
        extract: {
          inputSchema: z.object({ invoice: z.string() }),
          execute: async ({ invoice }): Promise<string> => {
            ran.push(invoice);
            throw Object.assign(new Error('total must be a number'), { status: 422 });
          },
        },
      });
      return { recovery, tools };
    };
    const bad = { invoice: 'inv-7' };
    provider.reset([toolCall('extract', bad), toolCall('extract', bad), toolCall('extract', bad)]);
    const first = await run(setup());
    expect(ran).toHaveLength(3);
    expect(first.outcome).toMatchObject({ status: 'FAILED', reason: 'POISON' });

    provider.reset([toolCall('extract', bad), text('done')]);
    const again = await run(setup());
    expect(ran).toHaveLength(3);
    expect(contractFor(again.conversation, 'call_1')).toMatchObject({
      failure_class: 'VALIDATION',
      code: 'POISON',
      retry_same_action: false,
    });
  });

  it('the outcome names each recovery once; ATTEMPTS_EXHAUSTED vs DEPENDENCY_RETRY_BUDGET_EXHAUSTED', async () => {
    const payments = createPayments('refuse');
    provider.reset([
      toolCall('refund_payment', refundArgs),
      toolCall('refund_payment', refundArgs), // asked again: answered from the ledger
      text('Refunded.'),
    ]);
    const ledger = new MemoryLedger();
    const result = await run(
      refundLoop(payments, { ledger, policies: { refund_payment: { sideEffects: true } } }),
    );
    expect(payments.applied).toHaveLength(1);
    expect(result.outcome.recoveries).toEqual([
      {
        tool: 'refund_payment',
        tool_call_id: 'call_1',
        failure_class: 'TRANSIENT',
        code: 'CONNECTION_REFUSED',
        action: 'RETRY',
        attempts: 2,
      },
    ]);
    expect(result.outcome.summary).toContain('refund_payment (CONNECTION_REFUSED, retried)');
    expect(result.outcome.completed_steps).toEqual(['refund_payment']);

    const codes: unknown[] = [];
    const starved = {
      canRetry: () => false,
      recordFailure: () => {},
      recordSuccess: () => {},
      tokens: () => 0,
    };
    for (const retry of [{ maxAttempts: 2 }, { budget: starved }]) {
      const recovery = createRecovery({ runId: 'run-sd', retry: { baseDelayMs: 0, ...retry } });
      const tools = recovery.tools({
        get_balance: {
          inputSchema: z.object({ account: z.string() }),
          execute: async (): Promise<string> => {
            throw Object.assign(new Error('Service Unavailable'), { status: 503 });
          },
        },
      });
      provider.reset([toolCall('get_balance', { account: 'a-1' }), text('ok')]);
      const balance = await run({ recovery, tools });
      codes.push(contractFor(balance.conversation, 'call_1').code);
    }
    expect(codes).toEqual(['ATTEMPTS_EXHAUSTED', 'DEPENDENCY_RETRY_BUDGET_EXHAUSTED']);
  });

  it('createConsoleTrace prints the run: the call, the failure and its code, the decision, what the model was told', async () => {
    const lines: string[] = [];
    const payments = createPayments('lose-response');
    provider.reset([toolCall('refund_payment', refundArgs), text('Refunded.')]);
    await run(
      refundLoop(payments, {
        ledger: new MemoryLedger(),
        onEvent: createConsoleTrace({ color: false, write: (line) => lines.push(line) }),
      }),
    );
    expect(lines).toEqual(
      expect.arrayContaining([
        '• refund_payment does not declare sideEffects: treated as a tool that may write',
        expect.stringMatching(/^call_1 → refund_payment\(\{"paymentId":"p-42","amount":100\}\)$/),
        expect.stringMatching(/^call_1 {3}✗ UNKNOWN_OUTCOME TIMEOUT: /),
        expect.stringMatching(/^call_1 {3}⇒ ABORT RECONCILE_BY_HAND: /),
        expect.stringMatching(/^call_1 {3}✎ model told: .*"code":"RECONCILE_BY_HAND"/),
        '■ run stopped: FAILED (RECONCILE_BY_HAND)',
      ]),
    );
  });
});
