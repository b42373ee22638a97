import { describe, expect, it } from 'vitest';
import type { Ledger } from '../ledger/ledger.js';
import { createRecoveryRuntime } from '../runtime/create-runtime.js';
import type { RecoveryEvent } from '../runtime/run/events.js';
import type { LedgerContractHarness } from './ledger-contract.js';

const refund = { paymentId: 'p-42', amount: 100 };

/**
 * What the runtime stores through this ledger: a result whose JSON form would lose its
 * content is recorded as completed without a result, and every later duplicate, on another
 * handle (another worker, a restart), is told to re-read instead of receiving `{}`.
 */
export function describeResultContract(harness: () => LedgerContractHarness): void {
  const runtimeOn = (ledger: Ledger, events: RecoveryEvent[] = []) => {
    const { clock, context } = harness();
    return createRecoveryRuntime({
      runId: `${context.namespace}-run`,
      ledger,
      clock,
      random: () => 0.5,
      policies: { refund_payment: { sideEffects: true } },
      onEvent: (event) => events.push(event),
    });
  };

  describe('results through the runtime', () => {
    it.each([
      ['a Map', { items: [1, 2, 3, new Map([['re_1', 100]])] }, 'holds a Map at .items[3]'],
      ['a Set', { refunds: new Set(['re_1']) }, 'holds a Set at .refunds'],
      ['an Error', new Error('declined'), 'is an Error (Error)'],
      ['a BigInt', { cents: 10_000n }, 'holds a BigInt at .cents'],
    ])(
      '%s is not stored: a duplicate on another handle gets RESULT_NOT_STORED and never runs',
      async (_label, value, reason) => {
        const handles = await harness().handles();
        const events: RecoveryEvent[] = [];
        let runs = 0;
        const execute = () => {
          runs++;
          return value;
        };
        const call = (ledger: Ledger, toolCallId: string) =>
          runtimeOn(ledger, events).execute({
            toolName: 'refund_payment',
            toolCallId,
            input: refund,
            execute,
          });

        const first = await call(handles[0]!, 'call-1');
        expect(first).toMatchObject({ ok: true, value });
        const noted = events.find((event) => event.type === 'result.unstorable');
        expect(noted).toMatchObject({ reason: `the result ${reason}` });
        const record = await handles[0]!.get(noted!.idempotencyKey);
        expect(record).toMatchObject({
          state: 'completed',
          result: { unstorable: `the result ${reason}` },
        });
        expect(record?.result?.json).toBeUndefined();

        const duplicate = await call(handles.at(-1)!, 'call-2');
        expect(runs).toBe(1);
        expect(duplicate).toMatchObject({
          ok: false,
          contract: {
            failure_class: 'UNKNOWN_OUTCOME',
            recommended_recovery: 'REOBSERVE',
            retry_same_action: false,
            code: 'RESULT_NOT_STORED',
          },
        });
      },
    );

    it('a result JSON holds (a Date, a class instance with own data) is replayed to a duplicate', async () => {
      const handles = await harness().handles();
      const receipt = new (class Receipt {
        readonly id = 're_1';
        readonly at = new Date(0);
      })();
      const input = { toolName: 'refund_payment', input: refund, execute: () => receipt };
      await runtimeOn(handles[0]!).execute({ ...input, toolCallId: 'call-1' });
      const duplicate = await runtimeOn(handles.at(-1)!).execute({
        ...input,
        toolCallId: 'call-2',
        execute: () => 'sent twice',
      });
      expect(duplicate).toMatchObject({
        ok: true,
        value: { id: 're_1', at: '1970-01-01T00:00:00.000Z' },
        deduplicated: true,
        degraded: false,
      });
    });
  });
}
