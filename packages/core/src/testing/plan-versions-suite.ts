import { describe, expect, it } from 'vitest';

// Plan versions: a failure no retry can fix closes the model's plan and asks for the next
// one, in the contract and in the next request's system text. One suite, run by every
// adapter through its own SDK (`describePlanVersions`), against the incident shop
// (ai-sdk-adapter/test-support/incident-shop.ts).

export interface PlanCall {
  name: 'find_deployments' | 'get_dashboard' | 'query_metrics' | 'run_tests' | 'read_fixture';
  input: Record<string, unknown>;
}

/** One model response: the calls it asks for, side by side, or its final text. */
export type PlanTurn = readonly PlanCall[] | string;

export interface PlanVersionsRun {
  /** The observability backend's record ("deployments checkout", "dashboard latency", ...). */
  requests: readonly string[];
  /** The bodies the CI service received; the fixtures read_fixture read. */
  ciRuns: readonly unknown[];
  fixtureReads: readonly string[];
  /** How many requests the model received. */
  modelRequests: number;
  /** The text of the i-th call's result, and the contract in it. */
  output(index: number): string;
  contract(index: number): Record<string, unknown>;
  /** The system-level text of the i-th request to the model, where the guidance goes. */
  guidance(index: number): string;
  outcome: { status: string; completed_steps: readonly string[]; plan: unknown };
  text: string;
  /** Call ids some request to the model left without an answer, where the SDK shows them. */
  unanswered?: readonly string[] | undefined;
}

export interface PlanVersionsDriver {
  /**
   * Scripts `turns`; runs them with the incident shop's tools (its handlers in place, its
   * `incidentPolicies`) under `createRecovery({ runId, onPoison })` and the adapter's own stop.
   */
  run(
    turns: readonly PlanTurn[],
    options: { onPoison?: 'replan' },
    prompt: string,
    maxSteps: number,
  ): Promise<PlanVersionsRun>;
  /** What the adapter puts before its guidance in the system text (e.g. "[recourse] "). */
  guidanceMark?: string;
  /** The guidance of one step stays in later requests (a system message in the history). */
  guidanceLingers?: boolean;
  /** run_tests' input without `serial` (strict schemas send an unset field as null). */
  checkout?: Record<string, unknown>;
}

const call = (name: PlanCall['name'], input: Record<string, unknown>): PlanCall => ({
  name,
  input,
});

/** The plan-versions suite for one adapter: each of `variants` is run through `driverFor`. */
export function describePlanVersions<V extends object>(
  title: string,
  variants: readonly V[],
  driverFor: (variant: V) => PlanVersionsDriver,
): void {
  describe.each(variants)(title, (variant) => {
    const driver = driverFor(variant);
    const mark = driver.guidanceMark ?? '';

    it('a PERMANENT check result invalidates plan v1; the model is told to make plan v2 and completes another way', async () => {
      const run = await driver.run(
        [
          [call('find_deployments', { service: 'checkout', since: '13:30' })],
          [call('query_metrics', { q: 'db_pool_in_use' })],
          'The database pool is exhausted.',
        ],
        {},
        'Why is checkout slow?',
        6,
      );
      expect(run.requests).toEqual(['deployments checkout', 'metrics db_pool_in_use']);
      const contract = run.contract(0);
      expect(contract).toMatchObject({
        failure_class: 'PERMANENT',
        recommended_recovery: 'REPLAN',
        retry_same_action: false,
        code: 'HYPOTHESIS_DISPROVED',
        invalidated_plan: 1,
        plan_version: 2,
      });
      expect(contract.guidance).toBe(
        'find_deployments cannot succeed as asked. Replan: plan v1 invalidated by find_deployments HYPOTHESIS_DISPROVED; make plan v2. Change the plan; do not repeat the same call.',
      );
      // What the model received on its next request: the guidance rides on it, once.
      expect(run.guidance(0)).not.toContain('plan v');
      expect(run.guidance(1)).toContain(
        `${mark}find_deployments cannot succeed as asked. Replan: plan v1 invalidated by find_deployments HYPOTHESIS_DISPROVED; make plan v2.`,
      );
      if (!driver.guidanceLingers) expect(run.guidance(2)).not.toContain('plan v');
      expect(run.text).toBe('The database pool is exhausted.');
      expect(run.outcome.status).toBe('COMPLETED');
      expect(run.outcome.completed_steps).toEqual(['query_metrics']);
      expect(run.outcome.plan).toEqual({
        version: 2,
        history: [
          {
            version: 1,
            invalidated_by: {
              tool: 'find_deployments',
              code: 'HYPOTHESIS_DISPROVED',
              observation:
                'find_deployments HYPOTHESIS_DISPROVED «no deployment of checkout since 13:30»',
            },
          },
        ],
      });
    });

    it('each 404 from a tool closes one plan version: v1, then v2; plan v3 completes', async () => {
      const run = await driver.run(
        [
          [call('get_dashboard', { uid: 'latency' })],
          [call('get_dashboard', { uid: 'checkout-latency' })],
          [call('query_metrics', { q: 'p99_latency' })],
          'p99 is high',
        ],
        {},
        'How is checkout latency?',
        6,
      );
      expect(run.requests).toEqual([
        'dashboard latency',
        'dashboard checkout-latency',
        'metrics p99_latency',
      ]);
      expect(run.contract(0)).toMatchObject({
        failure_class: 'PERMANENT',
        recommended_recovery: 'REPLAN',
        code: 'NOT_FOUND',
        invalidated_plan: 1,
        plan_version: 2,
      });
      expect(run.contract(1)).toMatchObject({
        code: 'NOT_FOUND',
        invalidated_plan: 2,
        plan_version: 3,
      });
      expect(run.guidance(1)).toContain(
        'Replan: plan v1 invalidated by get_dashboard NOT_FOUND; make plan v2',
      );
      expect(run.guidance(2)).toContain(
        'Replan: plan v2 invalidated by get_dashboard NOT_FOUND; make plan v3',
      );
      if (!driver.guidanceLingers) expect(run.guidance(2)).not.toContain('make plan v2');
      expect(run.outcome.status).toBe('COMPLETED');
      const notFound = (uid: string) => ({
        tool: 'get_dashboard',
        code: 'NOT_FOUND',
        observation: `get_dashboard NOT_FOUND «GET /dashboards/${uid} failed with status 404»`,
      });
      expect(run.outcome.plan).toEqual({
        version: 3,
        history: [
          { version: 1, invalidated_by: notFound('latency') },
          { version: 2, invalidated_by: notFound('checkout-latency') },
        ],
      });
    });

    it("onPoison 'replan': the poison step opens plan v2 instead of stopping; the quarantined call is refused before it runs, other calls run", async () => {
      const checkout = driver.checkout ?? { suite: 'checkout' };
      const serial = { suite: 'checkout', serial: true };
      const run = await driver.run(
        [
          [call('run_tests', checkout)],
          [call('run_tests', checkout)],
          [call('run_tests', checkout)], // poison: quarantined, plan v2
          [call('run_tests', checkout)], // refused before it runs
          [call('read_fixture', { name: 'db' }), call('run_tests', serial)],
          'green when run serially',
        ],
        { onPoison: 'replan' },
        'Make the checkout tests pass',
        10,
      );
      // The loop went on to the end of the script: the poison step did not stop it.
      expect(run.modelRequests).toBe(6);
      if (run.unanswered) expect(run.unanswered).toEqual([]);
      expect(run.ciRuns).toEqual([checkout, checkout, checkout, serial]);
      expect(run.fixtureReads).toEqual(['db']);
      const poison = run.contract(2);
      expect(poison).toMatchObject({
        failure_class: 'VALIDATION',
        recommended_recovery: 'REPLAN',
        retry_same_action: false,
        code: 'POISON',
        invalidated_plan: 1,
        plan_version: 2,
      });
      expect(poison.guidance).toContain('this action is quarantined');
      expect(poison.guidance).toContain(
        'Replan: plan v1 invalidated by run_tests TESTS_FAILED; make plan v2',
      );
      expect(run.guidance(3)).toContain(
        'Replan: plan v1 invalidated by run_tests TESTS_FAILED; make plan v2',
      );
      // The refused repeat is told it is quarantined; it does not open another plan.
      const refused = run.contract(3);
      expect(refused).toMatchObject({ code: 'POISON', recommended_recovery: 'REPLAN' });
      expect(refused).not.toHaveProperty('plan_version');
      expect(JSON.parse(run.output(4))).toEqual({ name: 'db', shared: true });
      expect(JSON.parse(run.output(5))).toEqual({ status: 'PASS' });
      expect(run.outcome.plan).toEqual({
        version: 2,
        history: [
          {
            version: 1,
            invalidated_by: {
              tool: 'run_tests',
              code: 'TESTS_FAILED',
              observation:
                'run_tests TESTS_FAILED «tests failed: AssertionError at checkout.test.ts:12»',
            },
          },
        ],
      });
      expect(run.outcome.status).toBe('COMPLETED');
    });
  });
}
