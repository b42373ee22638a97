import { describe, expect, it } from 'vitest';

// A tool can throw anything and return anything. Whatever it is, the model must receive a
// recovery contract (classified, bounded text) and the loop must not throw. One suite,
// run by every adapter through its own SDK (`describeHostileValues`).

// core's bound of `error_detail` (contract/quote-as-data: maxQuotedLength + the «» quotes).
const maxDetail = 2_002;
// The whole contract: the detail plus the fixed fields and the guidance.
const maxContract = 4_096;
// No request to the model carries more than this of what was thrown.
const maxRequestBody = 65_536;

/** What one run of the `act` tool through an adapter's SDK left behind. */
export interface HostileValuesRun {
  /** The text the model read for each call, in order (undefined: it read none). */
  outputs: readonly (string | undefined)[];
  /** How often the tool's own `execute` ran. */
  executed: number;
  outcome: { status: string };
  /** The raw bodies of the requests the model received during the run. */
  requestBodies: readonly string[];
}

export interface HostileValuesDriver {
  /**
   * Runs `calls` calls of one tool `act` (input `{ id: 'x-1' }`, each asked by the model
   * in its own step, no `stopWhen` of recourse) whose `execute` returns or throws
   * `result()`, under `createRecovery({ runId: 'run-hostile-values', ledger: new
   * MemoryLedger(), retry: { baseDelayMs: 0 }, policies: { act: { sideEffects } } })`.
   */
  runOnce(sideEffects: boolean, result: () => unknown, calls: number): Promise<HostileValuesRun>;
  /** The contract in what the model read (an SDK may wrap it, e.g. as `{ error }`). */
  readContract?: ((output: string) => Record<string, unknown>) | undefined;
}

const kinds = [
  {
    kind: 'read',
    sideEffects: false,
    contract: { failure_class: 'PERMANENT', recommended_recovery: 'REPLAN' },
    outcome: 'COMPLETED',
  },
  {
    kind: 'write',
    sideEffects: true,
    contract: {
      failure_class: 'UNKNOWN_OUTCOME',
      recommended_recovery: 'ABORT',
      code: 'RECONCILE_BY_HAND',
    },
    outcome: 'FAILED',
  },
] as const;

const throwingToJson = () => ({
  transferId: 't-1',
  toJSON() {
    throw new Error('toJSON exploded');
  },
});

/**
 * The hostile-values suite for one adapter: each of `variants` (an SDK's APIs or modes) is
 * run through `driverFor(variant)`. `thrown` and `revokedProxy` are the hostile values
 * (`@recourse/testing`'s `hostileThrownValues` and `revokedProxy`).
 */
export function describeHostileValues<V extends object>(
  title: string,
  variants: readonly V[],
  driverFor: (variant: V) => HostileValuesDriver,
  hostile: {
    thrown: readonly (readonly [name: string, make: () => unknown])[];
    revokedProxy: () => object;
  },
): void {
  describe.each(variants)(title, (variant) => {
    const driver = driverFor(variant);
    const bounded = (output: string | undefined) => boundedContract(driver, output);

    describe.each(kinds)('a $kind tool that throws', ({ sideEffects, contract, outcome }) => {
      it.each(hostile.thrown)(
        '%s: a classified, bounded contract; the loop goes on',
        async (_, make) => {
          const run = await driver.runOnce(
            sideEffects,
            () => {
              throw make();
            },
            1,
          );
          expect(run.executed).toBe(1);
          expect(bounded(run.outputs[0])).toMatchObject(contract);
          expect(run.outcome.status).toBe(outcome);
          // Nothing of what was thrown reached the model beyond the bound, in any request.
          for (const body of run.requestBodies) expect(body.length).toBeLessThan(maxRequestBody);
        },
      );
    });

    // The code says where it was caught: JSON refusing the value, or the first look at it
    // (a revoked proxy cannot even be asked whether it is a thenable or a stream).
    it.each([
      ['a result whose toJSON throws', throwingToJson, 'RESULT_NOT_SERIALISABLE'],
      [
        'a result with a throwing getter',
        () => ({
          get id() {
            throw new Error('getter exploded');
          },
        }),
        'RESULT_NOT_SERIALISABLE',
      ],
      ['a revoked Proxy as the result', hostile.revokedProxy, 'UNKNOWN'],
    ] as const)(
      '%s of a read: a PERMANENT contract, not "[object Object]"; the loop goes on',
      async (_, make, code) => {
        const run = await driver.runOnce(false, make, 1);
        expect(run.executed).toBe(1);
        expect(bounded(run.outputs[0])).toMatchObject({
          failure_class: 'PERMANENT',
          recommended_recovery: 'REPLAN',
          code,
        });
        expect(run.outcome.status).toBe('COMPLETED');
      },
    );

    it('a result whose toJSON throws, of a write: RESULT_NOT_STORED, and asked again it is not re-sent', async () => {
      const run = await driver.runOnce(true, throwingToJson, 2);
      expect(run.executed).toBe(1);
      const expected = {
        failure_class: 'UNKNOWN_OUTCOME',
        recommended_recovery: 'REOBSERVE',
        code: 'RESULT_NOT_STORED',
      };
      expect(bounded(run.outputs[0])).toMatchObject(expected);
      expect(bounded(run.outputs[1])).toMatchObject(expected);
      expect(run.outcome.status).toBe('PARTIAL_RESULT');
    });
  });
}

/** The contract the model read, checked to be bounded text first. */
function boundedContract(
  driver: HostileValuesDriver,
  output: string | undefined,
): Record<string, unknown> {
  if (output === undefined) throw new Error('the model received no tool result');
  expect(output.length).toBeLessThanOrEqual(maxContract);
  const contract = driver.readContract
    ? driver.readContract(output)
    : (JSON.parse(output) as Record<string, unknown>);
  expect(typeof contract.failure_class).toBe('string');
  expect(typeof contract.recommended_recovery).toBe('string');
  expect(contract.retry_same_action).toBe(false);
  const detail = contract.error_detail;
  if (detail !== undefined) {
    expect(typeof detail).toBe('string');
    expect((detail as string).length).toBeLessThanOrEqual(maxDetail);
  }
  return contract;
}
