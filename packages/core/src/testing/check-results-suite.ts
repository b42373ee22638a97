import { describe, expect, it } from 'vitest';
import type { CheckFailure } from '../runtime/options/recovery-options.js';

// A policy's `check(result, input)` reads a result that came back fine over HTTP and says
// whether the job was done. One suite, run by every adapter through its own SDK
// (`describeCheckResults`), against a CI service (`@recourse/testing`'s createCiService).

/** A CI report: answered 200 every time; whether the tests passed is in the body. */
export interface CiReport {
  status: 'PASS' | 'FAIL' | 'PENDING';
  signature?: string;
}

export interface CheckResultsPlan {
  /** What the CI service answers, in order (createCiService(reports)). */
  reports: readonly CiReport[];
  /** How many times the model asks `run_tests({ suite: 'checkout' })`, one call a step, before `answer`. */
  calls: number;
  answer: string;
  /** The policy: `{ sideEffects: false, check }`, with `retry` if given. */
  check: (report: CiReport, input: { suite: string }) => CheckFailure | undefined;
  retry?: { baseDelayMs: number };
  /** The step limit of the loop (the adapter's own stop is on as well). */
  maxSteps: number;
}

export interface CheckResultsRun {
  /** The bodies the CI service received. */
  runs: readonly unknown[];
  steps: number;
  /** Requests the model received, and scripted steps it was never asked for. */
  requests: number;
  remaining: number;
  /** The text of the i-th call's result (what the model read, or would have read had the loop gone on). */
  output(index: number): string;
  contract(index: number): Record<string, unknown>;
  /** The SDK's own value for the i-th call's result. */
  value(index: number): unknown;
  /** The system-level text of the i-th request to the model, where the adapter puts its guidance (if it does). */
  guidance?: ((index: number) => string) | undefined;
  requestBodies: readonly string[];
  outcome: object;
  text: string;
  /** Call ids some request to the model left without an answer, where the SDK shows them. */
  unanswered?: readonly string[] | undefined;
}

export interface CheckResultsDriver {
  /** `run_tests` (POST https://ci.test/runs with its input) under `plan`, through the SDK. */
  run(plan: CheckResultsPlan): Promise<CheckResultsRun>;
  /** What the adapter puts before its guidance in the system text (e.g. "[recourse] "). */
  guidanceMark?: string;
}

/**
 * The recovery options of a plan: `{ runId, retry, policies: { run_tests } }`; `check` as
 * the adapter's SDK hands it the result (the plan's own by default).
 */
export function checkResultsOptions<R = CiReport>(
  plan: CheckResultsPlan,
  check: (result: R, input: { suite: string }) => CheckFailure | undefined = plan.check as never,
) {
  return {
    runId: 'run-check',
    ...(plan.retry ? { retry: plan.retry } : {}),
    policies: { run_tests: { sideEffects: false, check } },
  };
}

const failing: CiReport = { status: 'FAIL', signature: 'AssertionError at checkout.test.ts:12' };
const suite = { suite: 'checkout' };
const failedRun = (report: CiReport): CheckFailure | undefined =>
  report.status === 'FAIL' ? { message: `tests failed: ${report.signature}` } : undefined;
const checkFailedGuidance =
  'run_tests ran, and its result says it did not do the job (CHECK_FAILED). Change what produced that result before calling run_tests again; the same call will give the same result.';

/** The check-results suite for one adapter: each of `variants` is run through `driverFor`. */
export function describeCheckResults<V extends object>(
  title: string,
  variants: readonly V[],
  driverFor: (variant: V) => CheckResultsDriver,
): void {
  describe.each(variants)(title, (variant) => {
    const driver = driverFor(variant);

    it('a FAIL report is a VALIDATION failure: repaired twice, then poison; the loop stops and the suite ran 3 times', async () => {
      // A fourth call is scripted but never asked for: the loop stopped.
      const run = await driver.run({
        reports: [failing],
        calls: 4,
        answer: 'never asked',
        check: failedRun,
        maxSteps: 8,
      });
      expect(run.runs).toEqual([suite, suite, suite]);
      expect(run.steps).toBe(3);
      expect(run.requests).toBe(3);
      expect(run.remaining).toBe(2);
      if (run.unanswered) expect(run.unanswered).toEqual([]);
      const first = run.contract(0);
      expect(first).toMatchObject({
        status: 'FAILED',
        failure_class: 'VALIDATION',
        recommended_recovery: 'REPAIR',
        retry_same_action: false,
        code: 'CHECK_FAILED',
        tool: 'run_tests',
        repairs_remaining: 1,
      });
      // The guidance says the call ran and its result failed (not "your arguments were wrong").
      expect(first.guidance).toBe(checkFailedGuidance);
      // The signature reaches the model as quoted data, so it can fix the right thing.
      expect(first.error_detail).toContain('AssertionError at checkout.test.ts:12');
      expect(run.contract(1)).toMatchObject({
        recommended_recovery: 'REPAIR',
        repairs_remaining: 0,
      });
      const third = run.contract(2);
      expect(third).toMatchObject({
        failure_class: 'VALIDATION',
        recommended_recovery: 'ABORT',
        retry_same_action: false,
        code: 'POISON',
      });
      expect(third.guidance).toContain('failed the same way after the repair budget was spent');
      // The repair guidance also went into the next request's system text.
      if (run.guidance)
        expect(run.guidance(1)).toContain(
          `${driver.guidanceMark ?? ''}run_tests ran, and its result says it did not do the job (CHECK_FAILED).`,
        );
      expect(run.outcome).toMatchObject({ status: 'FAILED', reason: 'POISON' });
      // The result itself never reached the model as a success.
      expect(run.value(0)).not.toHaveProperty('status', 'FAIL');
    });

    it("the check's own code names the failure; a different signature is a new failure, not poison; a PASS goes through", async () => {
      const checked: unknown[] = [];
      const run = await driver.run({
        reports: [
          failing,
          { status: 'FAIL', signature: 'TypeError: cart is undefined in cart.test.ts' },
          { status: 'PASS' },
        ],
        calls: 3,
        answer: 'green',
        check: (report, input) => {
          checked.push({ report: report.status, input });
          return report.status === 'FAIL'
            ? { message: `tests failed: ${report.signature}`, code: 'TESTS_FAILED' }
            : undefined;
        },
        maxSteps: 8,
      });
      expect(run.runs).toHaveLength(3);
      expect(checked).toEqual([
        { report: 'FAIL', input: suite },
        { report: 'FAIL', input: suite },
        { report: 'PASS', input: suite },
      ]);
      for (const index of [0, 1]) {
        expect(run.contract(index)).toMatchObject({
          code: 'TESTS_FAILED',
          recommended_recovery: 'REPAIR',
          repairs_remaining: 1, // each signature has its own repair budget
        });
      }
      expect(run.contract(0).guidance).toContain('(TESTS_FAILED)');
      expect(JSON.parse(run.output(2))).toEqual({ status: 'PASS' });
      expect(run.text).toBe('green');
      expect(run.outcome).toMatchObject({ status: 'COMPLETED', recoveries: [] });
    });

    it('a check that throws counts as a failure, and towards poison: the model never gets the value', async () => {
      const run = await driver.run({
        reports: [{ status: 'PASS' }],
        calls: 3,
        answer: 'never asked',
        check: (report) => {
          if (report.signature === undefined) throw new Error('report has no signature field');
          return undefined;
        },
        maxSteps: 6,
      });
      expect(run.runs).toHaveLength(3);
      // An error the classifier does not recognise, from a read: PERMANENT, so a new plan.
      expect(run.contract(0)).toMatchObject({
        status: 'FAILED',
        failure_class: 'PERMANENT',
        recommended_recovery: 'REPLAN',
        retry_same_action: false,
        tool: 'run_tests',
        error_detail: '«report has no signature field»',
      });
      for (const index of [0, 1, 2]) expect(run.output(index)).not.toContain('"PASS"');
      expect(run.contract(2)).toMatchObject({ recommended_recovery: 'ABORT', code: 'POISON' });
      expect(run.outcome).toMatchObject({ status: 'FAILED', reason: 'POISON' });
    });

    it('failureClass TRANSIENT: a PENDING report is polled again inside the call; the model sees only the final one', async () => {
      const run = await driver.run({
        reports: [{ status: 'PENDING' }, { status: 'PENDING' }, { status: 'PASS' }],
        calls: 1,
        answer: 'green',
        check: (report) =>
          report.status === 'PENDING'
            ? { message: 'the run is still pending', code: 'PENDING', failureClass: 'TRANSIENT' }
            : undefined,
        retry: { baseDelayMs: 0 },
        maxSteps: 4,
      });
      expect(run.runs).toHaveLength(3);
      expect(JSON.parse(run.output(0))).toEqual({ status: 'PASS' });
      expect(run.outcome).toMatchObject({
        status: 'COMPLETED',
        recoveries: [
          {
            tool: 'run_tests',
            failure_class: 'TRANSIENT',
            code: 'PENDING',
            action: 'RETRY',
            attempts: 3,
          },
        ],
      });
    });

    it("the check's message is redacted like an error's: a secret in the report never reaches the model", async () => {
      const token = 'ghp_0123456789abcdefghijABCDEFGHIJ012345';
      const run = await driver.run({
        reports: [{ status: 'FAIL', signature: `401 from api.github.com with token ${token}` }],
        calls: 1,
        answer: 'failed',
        check: failedRun,
        maxSteps: 4,
      });
      const contract = run.contract(0);
      expect(contract).toMatchObject({ code: 'CHECK_FAILED' });
      expect(contract.error_detail).toContain('401 from api.github.com');
      expect(run.requestBodies.join('\n')).not.toContain(token);
    });

    // A `failureClass` outside the six (a JavaScript caller's typo, a value read from a
    // config) is read as the documented default, VALIDATION: the contract never carries it.
    it('a failureClass that is not a failure class never reaches the model as one', async () => {
      const run = await driver.run({
        reports: [failing],
        calls: 1,
        answer: 'failed',
        check: (report) =>
          report.status === 'FAIL'
            ? ({ message: 'tests failed', failureClass: 'FATAL' } as unknown as CheckFailure)
            : undefined,
        maxSteps: 4,
      });
      expect([
        'TRANSIENT',
        'VALIDATION',
        'AUTHORIZATION',
        'STALE_STATE',
        'UNKNOWN_OUTCOME',
        'PERMANENT',
      ]).toContain(run.contract(0).failure_class);
    });
  });
}
