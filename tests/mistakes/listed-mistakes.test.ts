import { type AiSdkRecoveryOptions, createRecovery } from '@recourse/ai-sdk';
import {
  callContext,
  InvalidOptionsError,
  type RecoveryEvent,
  type ToolCallInfo,
  type ToolPolicy,
} from '@recourse/core';
import { createFakeClock } from '@recourse/core/testing';
import { text, toolCall } from '@recourse/testing';
import { tool } from 'ai';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { refundArgs, refundSchema, refundTool, runAgent } from './agent.js';
import { type LedgerLocation, ledgerKinds } from './ledgers.js';
import { findRefund, postRefund } from './payments-service.js';
import { contractOf, useMistakesServer } from './use-mistakes-server.js';

const { provider, payments, chat } = useMistakesServer();

type Reconcile = NonNullable<ToolPolicy['reconcile']>;
const plainJs = (reconcile: (input: unknown, info: ToolCallInfo) => unknown) =>
  reconcile as Reconcile;
const kinds = await ledgerKinds();

// The model asks for the refund, asks again with a new call id (it did not trust the first
// answer), then finishes: a repeat must never refund the card a second time.
const askTwice = () => [
  toolCall('refund_payment', refundArgs),
  toolCall('refund_payment', refundArgs),
  text('Refunded.'),
];
const askOnce = () => [toolCall('refund_payment', refundArgs), text('Refunded.')];
const outputs = () => provider.toolResults().map((r) => r.output);

describe('a policy typo in plain JavaScript cannot reach a tool call', () => {
  it('sideEffect: true → InvalidOptionsError at construction; the model and the service never hear of it', () => {
    provider.reset(askTwice());
    let caught: unknown;
    try {
      // What a JavaScript user writes: nothing checks the key before recourse does.
      createRecovery({
        runId: 'run-typo',
        policies: { refund_payment: { sideEffect: true } },
      } as unknown as AiSdkRecoveryOptions);
    } catch (error) {
      caught = error;
    }
    expect(InvalidOptionsError.isInstance(caught)).toBe(true);
    expect(caught).toMatchObject({
      field: 'policies.refund_payment.sideEffect',
      suggestion: 'sideEffects',
    });
    expect((caught as Error).message).toContain('did you mean "sideEffects"?');
    expect(provider.requests).toHaveLength(0);
    expect(payments.requests).toHaveLength(0);
  });
});

describe.each(kinds)(
  '$name ledger: each mistake refunds the card once, and the outcome says so',
  (kind) => {
    let location: LedgerLocation;
    let events: RecoveryEvent[];
    beforeEach(() => {
      location = kind.create();
      events = [];
    });
    afterEach(() => location.drop());

    /** A recovery on a new handle of the test's ledger: the first process, or one after a restart. */
    const recoveryOn = async (options: Partial<AiSdkRecoveryOptions> = {}) =>
      createRecovery({
        runId: 'run-1842',
        ledger: await location.open(),
        onEvent: (event) => events.push(event),
        ...options,
      });
    const ofType = (type: RecoveryEvent['type']) => events.filter((e) => e.type === type);

    // Each reads the service correctly and answers in the wrong shape (plain JavaScript:
    // nothing checks the shape before recourse does).
    const badAnswers: [string, Reconcile][] = [
      [
        'true',
        plainJs(async (_i, { idempotencyKey }) => Boolean(await findRefund(idempotencyKey))),
      ],
      [
        "'yes'",
        plainJs(async (_i, { idempotencyKey }) =>
          (await findRefund(idempotencyKey)) ? 'yes' : 'no',
        ),
      ],
      [
        '{ happend: true }',
        plainJs(async (_i, { idempotencyKey }) => ({
          happend: Boolean(await findRefund(idempotencyKey)),
        })),
      ],
    ];
    it.each(badAnswers)(
      'a reconcile returning %s: RECONCILE_FAILED, in doubt, listed, never re-sent (also after a restart)',
      async (_label, reconcile) => {
        const policies = { refund_payment: { sideEffects: true, reconcile } };
        payments.script('applied-then-504');
        provider.reset(askTwice());
        const first = await recoveryOn({ policies });
        await runAgent(chat(), first, { refund_payment: refundTool() }, { useRecoveryLoop: false });

        const key = payments.requests[0]!.key;
        expect(contractOf(outputs()[0]!)).toMatchObject({
          failure_class: 'UNKNOWN_OUTCOME',
          code: 'RECONCILE_FAILED',
          retry_same_action: false,
        });
        expect(first.outcome()).toMatchObject({
          status: 'FAILED',
          needs_reconciliation: [
            { tool: 'refund_payment', idempotency_key: key, code: 'RECONCILE_FAILED' },
          ],
        });

        provider.reset(askOnce());
        const restarted = await recoveryOn({ policies });
        await runAgent(chat(), restarted, { refund_payment: refundTool() });
        expect(contractOf(outputs()[0]!)).toMatchObject({ code: 'RECONCILE_FAILED' });
        expect(restarted.outcome().needs_reconciliation).toEqual([
          expect.objectContaining({ idempotency_key: key }),
        ]);
        expect(payments.requests).toHaveLength(1);
        expect(payments.applied).toHaveLength(1);
      },
    );

    it('a policy keyed by a misspelt tool name: reported as unused; the tool is undeclared, may write, and its lost refund is not re-sent', async () => {
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
      try {
        const policies = {
          refund_paymnet: {
            sideEffects: true,
            reconcile: async (_i: unknown, { idempotencyKey }: { idempotencyKey: string }) =>
              (await findRefund(idempotencyKey))
                ? { happened: true as const, result: 'refunded' }
                : { happened: false as const },
          },
        };
        payments.script('applied-then-504');
        provider.reset(askTwice());
        const first = await recoveryOn({ policies });
        await runAgent(chat(), first, { refund_payment: refundTool() }, { useRecoveryLoop: false });

        expect(ofType('policy.unused')).toEqual([
          expect.objectContaining({ tool: 'refund_paymnet', suggestion: 'refund_payment' }),
        ]);
        expect(warn).toHaveBeenCalledWith(
          expect.stringContaining('did you mean "refund_payment"?'),
        );
        expect(ofType('policy.undeclared')).toEqual([
          expect.objectContaining({ tool: 'refund_payment' }),
        ]);
        // Its reconcile never applied: the safe default stops, it does not re-send.
        expect(contractOf(outputs()[0]!)).toMatchObject({
          failure_class: 'UNKNOWN_OUTCOME',
          code: 'RECONCILE_BY_HAND',
        });
        expect(contractOf(outputs()[1]!)).toMatchObject({ retry_same_action: false });

        provider.reset(askOnce());
        await runAgent(chat(), await recoveryOn({ policies }), { refund_payment: refundTool() });
        expect(payments.requests).toHaveLength(1);
        expect(payments.applied).toHaveLength(1);
        expect(first.outcome()).toMatchObject({
          status: 'FAILED',
          reason: 'RECONCILE_BY_HAND',
          needs_reconciliation: [
            { tool: 'refund_payment', idempotency_key: payments.requests[0]!.key },
          ],
        });
      } finally {
        warn.mockRestore();
      }
    });

    it('a write tool the user forgot to declare: a 500 after the write is not re-sent (also after a restart)', async () => {
      payments.script('applied-then-500');
      provider.reset(askTwice());
      const first = await recoveryOn();
      await runAgent(chat(), first, { refund_payment: refundTool() }, { useRecoveryLoop: false });
      expect(ofType('policy.undeclared')).toHaveLength(1);
      expect(contractOf(outputs()[0]!)).toMatchObject({
        failure_class: 'UNKNOWN_OUTCOME',
        code: 'RECONCILE_BY_HAND',
        retry_same_action: false,
      });

      provider.reset(askOnce());
      const restarted = await recoveryOn();
      await runAgent(chat(), restarted, { refund_payment: refundTool() });
      expect(payments.requests).toHaveLength(1);
      expect(payments.applied).toHaveLength(1);
      for (const recovery of [first, restarted]) {
        expect(recovery.outcome()).toMatchObject({
          status: 'FAILED',
          needs_reconciliation: [{ idempotency_key: payments.requests[0]!.key }],
        });
      }
    });

    it('a timeout after the refund landed, reconciled: COMPLETED, and the outcome says recourse reconciled it instead of "every tool call completed"', async () => {
      const policies = {
        refund_payment: {
          sideEffects: true,
          reconcile: async (_i: unknown, { idempotencyKey }: { idempotencyKey: string }) =>
            (await findRefund(idempotencyKey))
              ? { happened: true as const, result: 'refunded' }
              : { happened: false as const },
        },
      };
      payments.script('applied-then-504');
      provider.reset(askTwice());
      const first = await recoveryOn({ policies });
      await runAgent(chat(), first, { refund_payment: refundTool() });

      const outcome = first.outcome();
      expect(outcome).toMatchObject({ status: 'COMPLETED', failures: [] });
      expect(outcome.recoveries).toEqual([
        expect.objectContaining({
          tool: 'refund_payment',
          failure_class: 'UNKNOWN_OUTCOME',
          action: 'RECONCILE',
        }),
      ]);
      expect(outcome.summary).not.toBe('Every tool call completed.');
      expect(outcome.summary).toMatch(/refund_payment \([A-Z_]+, reconciled\)/);
      expect(ofType('reconcile.finished')).toHaveLength(1);
      // The model's second ask was answered from the ledger, here and after a restart.
      provider.reset(askOnce());
      await runAgent(chat(), await recoveryOn({ policies }), { refund_payment: refundTool() });
      expect(payments.requests).toHaveLength(1);
      expect(payments.applied).toHaveLength(1);
    });

    it('a result JSON cannot hold: the caller gets it, every later duplicate gets RESULT_NOT_STORED, the refund runs once', async () => {
      const policies = { refund_payment: { sideEffects: true } };
      const bigRefund = () =>
        tool({
          inputSchema: refundSchema,
          execute: async (input) => {
            const refund = await postRefund(input, callContext().idempotencyKey);
            return { ...refund, cents: BigInt(input.amount) * 100n };
          },
          toModelOutput: ({ output }) => ({
            type: 'text',
            value: `${output.id}: ${output.cents} cents`,
          }),
        });
      provider.reset(askTwice());
      const ledger = await location.open();
      const first = createRecovery({
        runId: 'run-1842',
        ledger,
        policies,
        onEvent: (e) => events.push(e),
      });
      const result = await runAgent(
        chat(),
        first,
        { refund_payment: bigRefund() },
        { useRecoveryLoop: false },
      );
      const part = result.steps[0]!.content.find((p) => p.type === 'tool-result') as {
        output: { cents: bigint };
      };
      expect(part.output.cents).toBe(10_000n);
      expect(outputs()[0]).toBe('re_1: 10000 cents');
      const notStored = {
        failure_class: 'UNKNOWN_OUTCOME',
        code: 'RESULT_NOT_STORED',
        retry_same_action: false,
      };
      expect(contractOf(outputs()[1]!)).toMatchObject(notStored);
      const key = payments.requests[0]!.key!;
      expect(ofType('result.unstorable')).toEqual([
        expect.objectContaining({ tool: 'refund_payment', idempotencyKey: key }),
      ]);
      expect(await ledger.get(key)).toMatchObject({
        state: 'completed',
        result: { unstorable: expect.any(String) },
      });

      provider.reset(askOnce());
      await runAgent(
        chat(),
        await recoveryOn({ policies }),
        { refund_payment: bigRefund() },
        {
          useRecoveryLoop: false,
        },
      );
      expect(contractOf(outputs()[0]!)).toMatchObject(notStored);
      expect(payments.requests).toHaveLength(1);
      expect(payments.applied).toHaveLength(1);
    });

    it('a poison step after a restart: the same refund is refused before it reaches the service; a corrected one runs', async () => {
      const policies = { refund_payment: { sideEffects: true } };
      const tooMuch = { paymentId: 'p-42', amount: 1_000 };
      payments.script('rejected', 'rejected', 'rejected');
      provider.reset([
        toolCall('refund_payment', tooMuch),
        toolCall('refund_payment', tooMuch),
        toolCall('refund_payment', tooMuch),
        text('I could not refund it.'),
      ]);
      const first = await recoveryOn({ policies });
      await runAgent(chat(), first, { refund_payment: refundTool() });
      expect(payments.requests).toHaveLength(3);
      expect(first.outcome()).toMatchObject({ status: 'FAILED', reason: 'POISON' });

      const poison = { failure_class: 'VALIDATION', code: 'POISON', retry_same_action: false };
      const retryThenCorrect = () => [
        toolCall('refund_payment', tooMuch),
        toolCall('refund_payment', refundArgs),
        text('Refunded.'),
      ];
      // Restarted with the default onPoison 'stop': refused before it runs, and the run ends
      // there again, so the corrected refund of the next turn is not run either.
      provider.reset(retryThenCorrect());
      const restarted = await recoveryOn({ policies });
      await runAgent(chat(), restarted, { refund_payment: refundTool() });
      expect(contractOf(outputs()[0]!)).toMatchObject(poison);
      expect(contractOf(outputs()[1]!)).toMatchObject({ code: 'RUN_STOPPED' });
      expect(restarted.outcome()).toMatchObject({ status: 'FAILED', reason: 'POISON' });
      expect(payments.requests).toHaveLength(3);

      // Restarted with onPoison 'replan': still refused, and the corrected refund runs once.
      provider.reset(retryThenCorrect());
      const replanning = await recoveryOn({ policies, onPoison: 'replan' });
      await runAgent(chat(), replanning, { refund_payment: refundTool() });
      expect(contractOf(outputs()[0]!)).toMatchObject(poison);
      expect(JSON.parse(outputs()[1]!)).toMatchObject({ status: 'succeeded', amount: 100 });
      expect(payments.requests.map((r) => r.amount)).toEqual([1_000, 1_000, 1_000, 100]);
      expect(payments.applied).toHaveLength(1);
    });

    it('a tool that never settles: the deadline ends the attempt, TIMEOUT is UNKNOWN_OUTCOME, not re-sent (also after a restart)', async () => {
      const clock = createFakeClock();
      const policies = { refund_payment: { sideEffects: true, timeoutMs: 10_000 } };
      payments.script('applied-then-hang');
      provider.reset(askTwice());
      const first = await recoveryOn({ policies, clock });
      await runAgent(
        chat(),
        first,
        { refund_payment: refundTool() },
        // The deadline starts counting once the service has applied the refund.
        { useRecoveryLoop: false, clock, startClockWhen: payments.nextApplied() },
      );
      expect(ofType('failure.classified')).toEqual([
        expect.objectContaining({
          classification: expect.objectContaining({
            failureClass: 'UNKNOWN_OUTCOME',
            code: 'TIMEOUT',
          }),
        }),
      ]);
      expect(contractOf(outputs()[0]!)).toMatchObject({
        code: 'RECONCILE_BY_HAND',
        retry_same_action: false,
      });

      provider.reset(askOnce());
      await runAgent(
        chat(),
        await recoveryOn({ policies, clock }),
        { refund_payment: refundTool() },
        { clock, useRecoveryLoop: true },
      );
      expect(payments.requests).toHaveLength(1);
      expect(payments.applied).toHaveLength(1);
      expect(first.outcome()).toMatchObject({ status: 'FAILED', reason: 'RECONCILE_BY_HAND' });
    });

    it('exhausting maxAttempts: ATTEMPTS_EXHAUSTED, nothing was applied, so a later run may send it once', async () => {
      const clock = createFakeClock();
      const policies = { refund_payment: { sideEffects: true } };
      payments.script('busy', 'busy', 'busy');
      provider.reset(askOnce());
      const first = await recoveryOn({
        policies,
        clock,
        random: () => 0.5,
        retry: { maxAttempts: 3 },
      });
      await runAgent(chat(), first, { refund_payment: refundTool() }, { clock });
      expect(payments.requests).toHaveLength(3);
      expect(payments.applied).toHaveLength(0);
      expect(contractOf(outputs()[0]!)).toMatchObject({
        failure_class: 'TRANSIENT',
        code: 'ATTEMPTS_EXHAUSTED',
        retry_same_action: false,
      });
      expect(first.outcome().completed_steps).toEqual([]);
      expect(first.outcome().needs_reconciliation).toBeUndefined();

      provider.reset(askTwice());
      const later = await recoveryOn({ policies, clock });
      await runAgent(
        chat(),
        later,
        { refund_payment: refundTool() },
        { clock, useRecoveryLoop: false },
      );
      expect(payments.applied).toHaveLength(1);
      expect(new Set(payments.requests.map((r) => r.key)).size).toBe(1); // one operation, one key
      expect(later.outcome()).toMatchObject({
        status: 'COMPLETED',
        completed_steps: ['refund_payment'],
      });
    });
  },
);
