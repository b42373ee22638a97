import { type AiSdkRecoveryOptions, createRecovery } from '@recourse/ai-sdk';
import {
  callContext,
  InvalidOptionsError,
  MemoryLedger,
  RecourseError,
  type RecoveryEvent,
} from '@recourse/core';
import { createFakeClock } from '@recourse/core/testing';
import { text, toolCall } from '@recourse/testing';
import { tool } from 'ai';
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import { lookupTool, refundArgs, refundSchema, refundTool, runAgent } from './agent.js';
import { findRefund, postRefund } from './payments-service.js';
import { contractOf, useMistakesServer } from './use-mistakes-server.js';

const { provider, payments, chat } = useMistakesServer();

const askTwice = () => [
  toolCall('refund_payment', refundArgs),
  toolCall('refund_payment', refundArgs),
  text('Refunded.'),
];
const askOnce = () => [toolCall('refund_payment', refundArgs), text('Refunded.')];
const outputs = () => provider.toolResults().map((r) => r.output);
const write = { sideEffects: true } as const;

/** What a correct reconcile does: ask the payments service for a refund with this key. */
const reconcileByKey = async (_input: unknown, { idempotencyKey }: { idempotencyKey: string }) =>
  (await findRefund(idempotencyKey))
    ? { happened: true as const, result: { status: 'succeeded' } }
    : { happened: false as const };

function construct(options: Record<string, unknown>): unknown {
  try {
    createRecovery({ runId: 'run-m', ...options } as AiSdkRecoveryOptions);
  } catch (error) {
    return error;
  }
  return undefined;
}

let warn: MockInstance<typeof console.warn>;
beforeEach(() => {
  warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
});
afterEach(() => warn.mockRestore());

describe('mistakes recourse catches', () => {
  it('a key function that returns the same key for different payments: the second is an IDEMPOTENCY_CONFLICT, never sent', async () => {
    provider.reset([
      toolCall('refund_payment', { paymentId: 'p-42', amount: 100 }),
      toolCall('refund_payment', { paymentId: 'p-43', amount: 100 }),
      text('Refunded both.'),
    ]);
    const recovery = createRecovery({
      runId: 'run-k1',
      // Keyed by the amount: every 100 EUR refund of the run is "the same operation".
      policies: { refund_payment: { ...write, key: (input) => `refund-${input.amount}` } },
    });
    await runAgent(chat(), recovery, { refund_payment: refundTool() });
    expect(payments.applied.map((r) => r.paymentId)).toEqual(['p-42']);
    expect(contractOf(outputs()[1]!)).toMatchObject({
      failure_class: 'PERMANENT',
      code: 'IDEMPOTENCY_CONFLICT',
      retry_same_action: false,
    });
    // Honest: the run did not do everything it was asked.
    expect(recovery.outcome().status).not.toBe('COMPLETED');
    expect(recovery.outcome().failures).toEqual([
      expect.objectContaining({ tool: 'refund_payment', code: 'IDEMPOTENCY_CONFLICT' }),
    ]);
  });

  it('a key function that throws: nothing is sent', async () => {
    provider.reset(askOnce());
    const recovery = createRecovery({
      runId: 'run-k2',
      policies: {
        refund_payment: {
          ...write,
          key: (input: { payment: { id: string } }) => `refund-${input.payment.id}`,
        },
      },
    });
    await runAgent(chat(), recovery, { refund_payment: refundTool() });
    expect(payments.requests).toEqual([]);
  });

  it('a slow reconcile (3 s) is waited for: the refund is found, not re-sent', async () => {
    const clock = createFakeClock();
    payments.script('applied-then-504');
    provider.reset(askOnce());
    const recovery = createRecovery({
      runId: 'run-r1',
      clock,
      policies: {
        refund_payment: {
          ...write,
          reconcile: async (input, info) => {
            await clock.sleep(3_000);
            return reconcileByKey(input, info);
          },
        },
      },
    });
    await runAgent(chat(), recovery, { refund_payment: refundTool() }, { clock });
    expect(payments.applied).toHaveLength(1);
    expect(JSON.parse(outputs()[0]!)).toEqual({ status: 'succeeded' });
    expect(recovery.outcome()).toMatchObject({
      status: 'COMPLETED',
      recoveries: [{ tool: 'refund_payment', action: 'RECONCILE' }],
    });
  });

  it('a resource function that throws fails closed: the call touches everything, and a scope blocks it', async () => {
    const policy = {
      ...write,
      resource: (input: { payment: { id: string } }) => `payment:${input.payment.id}`,
    };
    provider.reset(askOnce());
    const scoped = createRecovery({
      runId: 'run-s1',
      scope: { allow: ['payment:*'] },
      policies: { refund_payment: policy },
    });
    await runAgent(chat(), scoped, { refund_payment: refundTool() });
    expect(payments.requests).toEqual([]);
    expect(contractOf(outputs()[0]!)).toMatchObject({
      status: 'BLOCKED',
      failure_class: 'AUTHORIZATION',
      retry_same_action: false,
    });
    expect(scoped.outcome()).toMatchObject({
      status: 'BLOCKED',
      blocked: [{ tool: 'refund_payment', resource: '*' }],
    });

    // Without scope rules nothing needs the resource: the refund runs once.
    provider.reset(askOnce());
    await runAgent(
      chat(),
      createRecovery({ runId: 'run-s2', policies: { refund_payment: policy } }),
      {
        refund_payment: refundTool(),
      },
    );
    expect(payments.applied).toHaveLength(1);
  });

  it.each([
    [{ retry: { maxAttempts: 0 } }, 'retry.maxAttempts'],
    [{ retry: { maxAttempts: '3' } }, 'retry.maxAttempts'],
    [{ policies: { refund_payment: { maxAttempts: 1.5 } } }, 'policies.refund_payment.maxAttempts'],
    [{ policies: { refund_payment: { timeoutMs: 0 } } }, 'policies.refund_payment.timeoutMs'],
    [{ retry: { timeoutMs: -1 } }, 'retry.timeoutMs'],
    [{ repairBudget: '2' }, 'repairBudget'],
    [
      { policies: { refund_payment: { sideEffects: 'true' } } },
      'policies.refund_payment.sideEffects',
    ],
    [{ policies: [{ sideEffects: true }] }, 'policies'],
    [{ policy: { refund_payment: { sideEffects: true } } }, 'policy'],
    [{ onDenial: 'stopp' }, 'onDenial'],
  ])('a bad option value %j → InvalidOptionsError naming %s', (options, field) => {
    const error = construct(options);
    expect(InvalidOptionsError.isInstance(error)).toBe(true);
    expect((error as InvalidOptionsError).field).toBe(field);
  });

  it.each([
    [
      'throws',
      () => {
        throw new Error('listener bug');
      },
    ],
    [
      'is async and rejects',
      async () => {
        throw new Error('listener bug');
      },
    ],
  ])(
    'an onEvent listener that %s changes nothing: one refund, the result reaches the model',
    async (_label, onEvent) => {
      const unhandled: unknown[] = [];
      const record = (reason: unknown) => unhandled.push(reason);
      process.on('unhandledRejection', record);
      try {
        payments.script('busy');
        provider.reset(askTwice());
        const recovery = createRecovery({
          runId: 'run-e1',
          retry: { baseDelayMs: 0 },
          policies: { refund_payment: write },
          onEvent,
        });
        await runAgent(chat(), recovery, { refund_payment: refundTool() });
        for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
        expect(payments.applied).toHaveLength(1);
        expect(outputs().map((o) => JSON.parse(o).status)).toEqual(['succeeded', 'succeeded']);
        expect(recovery.outcome().status).toBe('COMPLETED');
        expect(unhandled).toEqual([]);
      } finally {
        process.off('unhandledRejection', record);
      }
    },
  );

  it('callContext() outside a tool throws a RecourseError that says so; inside, it survives awaits and callbacks', async () => {
    let outside: unknown;
    try {
      callContext();
    } catch (error) {
      outside = error;
    }
    expect(RecourseError.isInstance(outside)).toBe(true);
    expect(outside).toMatchObject({ code: 'OUTSIDE_CALL' });
    expect((outside as Error).message).toMatch(/outside a tool wrapped by recourse/);

    provider.reset(askOnce());
    const keys: string[] = [];
    const recovery = createRecovery({ runId: 'run-c1', policies: { refund_payment: write } });
    await runAgent(chat(), recovery, {
      refund_payment: tool({
        inputSchema: refundSchema,
        execute: async (input) => {
          keys.push(callContext().idempotencyKey);
          await new Promise((resolve) => setImmediate(resolve));
          keys.push(
            await new Promise<string>((resolve) =>
              setImmediate(() => resolve(callContext().idempotencyKey)),
            ),
          );
          return postRefund(input, callContext().idempotencyKey);
        },
      }),
    });
    expect(new Set([...keys, payments.applied[0]!.key]).size).toBe(1);
  });

  it('one recovery reused for a second conversation is the same run: an identical refund is answered from the ledger, and a stopped run stays stopped', async () => {
    const recovery = createRecovery({ runId: 'run-u1', policies: { refund_payment: write } });
    const tools = { refund_payment: refundTool(), lookup_payment: lookupTool() };
    provider.reset(askOnce());
    await runAgent(chat(), recovery, tools);
    provider.reset(askOnce()); // "another customer", the same payment and amount
    await runAgent(chat(), recovery, tools);
    expect(payments.applied).toHaveLength(1);
    expect(outputs().map((o) => JSON.parse(o).id)).toEqual(['re_1']);

    // Once the run stopped (a lost refund, reconcile by hand), every later call is refused.
    payments.reset();
    payments.script('applied-then-504');
    const stopped = createRecovery({ runId: 'run-u2', policies: { refund_payment: write } });
    provider.reset(askOnce());
    await runAgent(chat(), stopped, tools);
    provider.reset([toolCall('lookup_payment', { paymentId: 'p-7' }), text('done')]);
    await runAgent(chat(), stopped, tools);
    expect(contractOf(outputs()[0]!)).toMatchObject({
      code: 'RUN_STOPPED',
      retry_same_action: false,
    });
    expect(payments.lookups).toEqual([]);
    // The fix: one recovery (one runId) per run.
    provider.reset([toolCall('lookup_payment', { paymentId: 'p-7' }), text('done')]);
    await runAgent(chat(), createRecovery({ runId: 'run-u3' }), tools);
    expect(payments.lookups).toEqual(['p-7']);
  });

  it('wrapping the same tools twice: one layer, the refund runs once and its result is stored', async () => {
    provider.reset(askTwice());
    const recovery = createRecovery({ runId: 'run-w1', policies: { refund_payment: write } });
    const once = recovery.tools({ refund_payment: refundTool() });
    await runAgent(chat(), recovery, recovery.tools(once)); // runAgent wraps a third time
    expect(payments.applied).toHaveLength(1);
    expect(outputs().map((o) => JSON.parse(o).status)).toEqual(['succeeded', 'succeeded']);
    expect(recovery.outcome()).toMatchObject({ status: 'COMPLETED', failures: [] });
  });

  it('toolsets wrapped in two calls: no false "names no wrapped tool" warning', async () => {
    const recovery = createRecovery({
      runId: 'run-w2',
      policies: { refund_payment: write, lookup_payment: { sideEffects: false } },
    });
    const tools = {
      ...recovery.tools({ refund_payment: refundTool() }),
      ...recovery.tools({ lookup_payment: lookupTool() }),
    };
    provider.reset(askOnce());
    await runAgent(chat(), recovery, tools);
    expect(warn).not.toHaveBeenCalled();
  });

  it('forgetting stopWhen and prepareStep: after the run stopped, every later call of any tool is refused, none runs', async () => {
    payments.script('applied-then-504');
    provider.reset([
      toolCall('refund_payment', refundArgs),
      toolCall('refund_payment', refundArgs),
      toolCall('lookup_payment', { paymentId: 'p-42' }),
      text('done'),
    ]);
    const recovery = createRecovery({ runId: 'run-f1', policies: { refund_payment: write } });
    await runAgent(chat(), recovery, {
      refund_payment: refundTool(),
      lookup_payment: lookupTool(),
    });
    expect(payments.requests).toHaveLength(1);
    expect(payments.lookups).toEqual([]);
    const [lost, again, lookup] = outputs().map(contractOf);
    expect(lost).toMatchObject({ code: 'RECONCILE_BY_HAND' });
    expect(again).toMatchObject({ retry_same_action: false });
    expect(lookup).toMatchObject({ code: 'RUN_STOPPED', retry_same_action: false });
    expect(recovery.outcome()).toMatchObject({ status: 'FAILED', reason: 'RECONCILE_BY_HAND' });
  });

  it('a tool that returns a Promise of a BigInt, without toModelOutput: the SDK could not send it, so the model is told RESULT_NOT_STORED instead of the loop throwing; the refund ran once, and a restart does not run it again', async () => {
    const ledger = new MemoryLedger();
    const events: RecoveryEvent[] = [];
    const options = { runId: 'run-b1', ledger, policies: { refund_payment: write } };
    const bigRefund = () =>
      tool({
        inputSchema: refundSchema,
        execute: async (input): Promise<bigint> => {
          await postRefund(input, callContext().idempotencyKey);
          return BigInt(input.amount) * 100n;
        },
      });
    provider.reset(askOnce());
    const first = createRecovery({ ...options, onEvent: (e) => events.push(e) });
    await runAgent(chat(), first, { refund_payment: bigRefund() });
    expect(payments.applied).toHaveLength(1);
    expect(events.some((e) => e.type === 'result.unstorable')).toBe(true);
    // The write happened: not a failure to retry, a result to read from the service.
    expect(contractOf(outputs()[0]!)).toMatchObject({
      code: 'RESULT_NOT_STORED',
      recommended_recovery: 'REOBSERVE',
      retry_same_action: false,
    });

    provider.reset(askOnce());
    await runAgent(chat(), createRecovery(options), { refund_payment: bigRefund() });
    expect(payments.requests).toHaveLength(1);
    expect(contractOf(outputs()[0]!)).toMatchObject({
      code: 'RESULT_NOT_STORED',
      retry_same_action: false,
    });
  });

  it('mutating the result after returning it: a duplicate gets the value as it was returned', async () => {
    provider.reset(askTwice());
    const recovery = createRecovery({ runId: 'run-x1', policies: { refund_payment: write } });
    await runAgent(chat(), recovery, {
      refund_payment: tool({
        inputSchema: refundSchema,
        execute: async (input) => {
          const refund: Record<string, unknown> = {
            ...(await postRefund(input, callContext().idempotencyKey)),
          };
          setImmediate(() => {
            refund.status = 'mutated later';
          });
          return refund;
        },
      }),
    });
    expect(payments.applied).toHaveLength(1);
    expect(JSON.parse(outputs()[1]!).status).toBe('succeeded');
  });

  it('sideEffects written on the AI SDK tool instead of the policy: not read, so the tool is undeclared and may write', async () => {
    payments.script('applied-then-504');
    provider.reset(askTwice());
    const events: RecoveryEvent[] = [];
    const recovery = createRecovery({ runId: 'run-t1', onEvent: (e) => events.push(e) });
    const misplaced = Object.assign(refundTool(), { sideEffects: true });
    await runAgent(chat(), recovery, { refund_payment: misplaced });
    expect(payments.requests).toHaveLength(1);
    expect(events.filter((e) => e.type === 'policy.undeclared')).toHaveLength(1);
    expect(contractOf(outputs()[0]!)).toMatchObject({ failure_class: 'UNKNOWN_OUTCOME' });
  });

  it('an undeclared tool that throws a string after the write: UNKNOWN_OUTCOME, not re-sent', async () => {
    provider.reset(askTwice());
    const recovery = createRecovery({ runId: 'run-t2' });
    await runAgent(chat(), recovery, {
      refund_payment: tool({
        inputSchema: refundSchema,
        execute: async (input): Promise<string> => {
          await postRefund(input, callContext().idempotencyKey);
          throw 'refund failed, maybe';
        },
      }),
    });
    expect(payments.applied).toHaveLength(1);
    expect(contractOf(outputs()[0]!)).toMatchObject({
      failure_class: 'UNKNOWN_OUTCOME',
      retry_same_action: false,
    });
  });

  it("a write's own toModelOutput never sees recourse's failure: the model reads the contract", async () => {
    payments.script('applied-then-504');
    provider.reset(askOnce());
    const recovery = createRecovery({ runId: 'run-t3', policies: { refund_payment: write } });
    await runAgent(chat(), recovery, {
      refund_payment: tool({
        inputSchema: refundSchema,
        execute: async (input) => postRefund(input, callContext().idempotencyKey),
        toModelOutput: ({ output }) => ({
          type: 'text',
          value: `Refund ${output.id} is ${output.status}`,
        }),
      }),
    });
    expect(outputs()[0]).not.toContain('Refund undefined');
    expect(contractOf(outputs()[0]!)).toMatchObject({ code: 'RECONCILE_BY_HAND' });
  });

  it('the model asks again with its arguments reordered: the same operation, the same key, one refund', async () => {
    provider.reset([
      toolCall('refund_payment', '{"paymentId":"p-42","amount":100}'),
      toolCall('refund_payment', '{"amount":100,"paymentId":"p-42"}'),
      text('done'),
    ]);
    const recovery = createRecovery({ runId: 'run-a1', policies: { refund_payment: write } });
    await runAgent(chat(), recovery, { refund_payment: refundTool() });
    expect(payments.applied).toHaveLength(1);
    expect(outputs().map((o) => JSON.parse(o).id)).toEqual(['re_1', 're_1']);
  });

  it('the model asks for the same refund twice in one turn: one runs, the other gets its result', async () => {
    const clock = createFakeClock();
    provider.reset([
      [toolCall('refund_payment', refundArgs), toolCall('refund_payment', refundArgs)],
      text('done'),
    ]);
    const recovery = createRecovery({
      runId: 'run-a2',
      clock,
      policies: { refund_payment: write },
    });
    await runAgent(chat(), recovery, { refund_payment: refundTool() }, { clock });
    expect(payments.applied).toHaveLength(1);
    expect(outputs().map((o) => JSON.parse(o).id)).toEqual(['re_1', 're_1']);
  });
});

describe('mistakes recourse cannot see: the user’s declaration wins', () => {
  it('idempotent: true on a service that does not dedupe: the lost refund is replayed behind the same key and applied twice', async () => {
    payments.script('applied-then-504');
    provider.reset(askOnce());
    const recovery = createRecovery({
      runId: 'run-i1',
      retry: { baseDelayMs: 0 },
      policies: { refund_payment: { ...write, idempotent: true } },
    });
    await runAgent(chat(), recovery, { refund_payment: refundTool() });
    expect(payments.applied).toHaveLength(2);
    // What recourse did is on record: one key for both requests, a REPLAY in the outcome.
    expect(new Set(payments.requests.map((r) => r.key)).size).toBe(1);
    expect(recovery.outcome().recoveries).toEqual([
      expect.objectContaining({ tool: 'refund_payment', action: 'REPLAY', attempts: 2 }),
    ]);

    // The same policy in front of a service that honours the key: applied once.
    payments.reset();
    payments.dedupe = true;
    payments.script('applied-then-504');
    provider.reset(askOnce());
    await runAgent(
      chat(),
      createRecovery({
        runId: 'run-i2',
        retry: { baseDelayMs: 0 },
        policies: { refund_payment: { ...write, idempotent: true } },
      }),
      {
        refund_payment: refundTool(),
      },
    );
    expect(payments.applied).toHaveLength(1);
  });

  it('defaultPolicy { sideEffects: false } ("all my tools are reads") with a write among them: the lost refund is retried blindly', async () => {
    payments.script('applied-then-504');
    provider.reset(askOnce());
    const recovery = createRecovery({
      runId: 'run-i3',
      retry: { baseDelayMs: 0 },
      defaultPolicy: { sideEffects: false },
    });
    await runAgent(chat(), recovery, { refund_payment: refundTool() });
    expect(payments.applied).toHaveLength(2);
    expect(recovery.outcome().recoveries).toEqual([
      expect.objectContaining({
        tool: 'refund_payment',
        failure_class: 'TRANSIENT',
        action: 'RETRY',
        attempts: 2,
      }),
    ]);
  });

  it('a reconcile that answers { happened: false } without looking: the refund is sent again', async () => {
    payments.script('applied-then-504');
    provider.reset(askOnce());
    const recovery = createRecovery({
      runId: 'run-i4',
      retry: { baseDelayMs: 0 },
      policies: { refund_payment: { ...write, reconcile: () => ({ happened: false }) } },
    });
    await runAgent(chat(), recovery, { refund_payment: refundTool() });
    expect(payments.applied).toHaveLength(2);
    expect(new Set(payments.requests.map((r) => r.key)).size).toBe(1);
  });
});

// Each of these refunded a card twice, or left the model without a contract, until the
// core was fixed; they stay as regression tests.
describe('gaps found by these tests, now closed', () => {
  it('a write whose tool aborts its own request after it landed (its own AbortController timer): in doubt, not re-sent when the model asks again', async () => {
    payments.script('applied-then-hang');
    let controller: AbortController | undefined;
    payments.onApplied = () => controller?.abort(); // the tool's own 5 s timer fires
    provider.reset(askTwice());
    const recovery = createRecovery({ runId: 'run-g1', policies: { refund_payment: write } });
    await runAgent(chat(), recovery, {
      refund_payment: tool({
        inputSchema: refundSchema,
        execute: async (input) => {
          controller = new AbortController();
          return postRefund(input, callContext().idempotencyKey, controller.signal);
        },
      }),
    });
    // One refund: the aborted call's write is in doubt, so the second ask is not sent again.
    expect(payments.applied).toHaveLength(1);
  });

  it('a run cancelled while its refund is in flight, then run again: the refund stays in doubt, not re-sent', async () => {
    const ledger = new MemoryLedger();
    const options = { runId: 'run-g2', ledger, policies: { refund_payment: write } };
    const controller = new AbortController();
    payments.script('applied-then-hang');
    payments.onApplied = () =>
      controller.abort(new DOMException('cancelled by the user', 'AbortError'));
    provider.reset(askOnce());
    await expect(
      runAgent(
        chat(),
        createRecovery(options),
        { refund_payment: refundTool() },
        { abortSignal: controller.signal },
      ),
    ).rejects.toThrow('cancelled by the user');

    provider.reset(askOnce());
    await runAgent(chat(), createRecovery(options), { refund_payment: refundTool() });
    // One refund: the cancelled call's claim stays in doubt for the next run, not released.
    expect(payments.applied).toHaveLength(1);
  });

  it('a key function that throws: the model gets a recovery contract and the outcome lists the failure', async () => {
    provider.reset(askOnce());
    const recovery = createRecovery({
      runId: 'run-g3',
      policies: {
        refund_payment: { ...write, key: (input: { payment: { id: string } }) => input.payment.id },
      },
    });
    await runAgent(chat(), recovery, { refund_payment: refundTool() });
    expect(contractOf(outputs()[0]!)).toMatchObject({
      code: 'KEY_FUNCTION_FAILED',
      recommended_recovery: 'ABORT',
    });
    const outcome = recovery.outcome();
    expect(outcome.status).not.toBe('COMPLETED');
    expect(outcome.failures).toEqual([
      expect.objectContaining({ tool: 'refund_payment', code: 'KEY_FUNCTION_FAILED' }),
    ]);
    expect(payments.applied).toHaveLength(0);
  });

  it('a reconcile that never settles does not hang the run: the deadline bounds it too (RECONCILE_FAILED)', async () => {
    const clock = createFakeClock();
    payments.script('applied-then-504');
    provider.reset(askOnce());
    const recovery = createRecovery({
      runId: 'run-g4',
      clock,
      retry: { timeoutMs: 1_000 },
      policies: { refund_payment: { ...write, reconcile: () => new Promise(() => {}) } },
    });
    let settled = false;
    // Driven here, a bounded number of steps: a driver waiting for the run would never end.
    void runAgent(chat(), recovery, { refund_payment: refundTool() }).finally(() => {
      settled = true;
    });
    for (let i = 0; i < 200 && !settled; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      await clock.advance(1_000);
    }
    expect(payments.applied).toHaveLength(1); // never re-sent while the reconcile hangs
    expect(settled).toBe(true); // the deadline ended the reconcile: the run did not hang
    expect(contractOf(outputs()[0]!)).toMatchObject({ code: 'RECONCILE_FAILED' });
    expect(recovery.outcome().failures).toEqual([
      expect.objectContaining({ tool: 'refund_payment', code: 'RECONCILE_FAILED' }),
    ]);
  });
});
