import { callService } from '@recourse/testing';
import { HttpResponse, http } from 'msw';

/**
 * An observability backend and a CI service at the HTTP boundary (msw), and what the plan
 * versions suite's tools do with them: each adapter adds its SDK's schemas. The dashboards
 * answer 404; the CI fails every run but a serial one, the same way (a shared fixture).
 */
export function createIncidentShop() {
  const requests: string[] = [];
  const ciRuns: unknown[] = [];
  const fixtureReads: string[] = [];
  const handlers = [
    http.get('https://obs.test/deployments', ({ request }) => {
      requests.push(`deployments ${new URL(request.url).searchParams.get('service')}`);
      return HttpResponse.json({ deployments: [] });
    }),
    http.get('https://obs.test/dashboards/:uid', ({ params }) => {
      requests.push(`dashboard ${params.uid}`);
      return HttpResponse.json({ message: 'Dashboard not found' }, { status: 404 });
    }),
    http.get('https://obs.test/metrics', ({ request }) => {
      requests.push(`metrics ${new URL(request.url).searchParams.get('q')}`);
      return HttpResponse.json({ value: 0.98 });
    }),
    http.post('https://ci.test/runs', async ({ request }) => {
      const input = (await request.json()) as { suite: string; serial?: boolean | null };
      ciRuns.push(input);
      return HttpResponse.json(
        input.serial
          ? { status: 'PASS' }
          : { status: 'FAIL', signature: 'AssertionError at checkout.test.ts:12' },
      );
    }),
  ];
  const execute = {
    find_deployments: async ({ service }: { service: string }) =>
      (await callService('GET', `https://obs.test/deployments?service=${service}`)) as {
        deployments: unknown[];
      },
    get_dashboard: async ({ uid }: { uid: string }) =>
      callService('GET', `https://obs.test/dashboards/${uid}`),
    query_metrics: async ({ q }: { q: string }) =>
      callService('GET', `https://obs.test/metrics?q=${q}`),
    run_tests: async (input: { suite: string; serial?: boolean | null | undefined }) =>
      (await callService('POST', 'https://ci.test/runs', input)) as CiRun,
    read_fixture: ({ name }: { name: string }) => {
      fixtureReads.push(name);
      return { name, shared: true };
    },
  };
  return { requests, ciRuns, fixtureReads, handlers, execute };
}

interface CiRun {
  status: string;
  signature?: string;
}

/** The reads' policies: an empty deployments answer disproves the plan; a FAIL report is a failed check. */
export const incidentPolicies = {
  find_deployments: {
    sideEffects: false,
    // An empty answer disproves the plan's hypothesis: no retry or repair can change it.
    check: (result: { deployments: unknown[] }, input: { service: string; since: string }) =>
      result.deployments.length === 0
        ? {
            message: `no deployment of ${input.service} since ${input.since}`,
            code: 'HYPOTHESIS_DISPROVED',
            failureClass: 'PERMANENT' as const,
          }
        : undefined,
  },
  get_dashboard: { sideEffects: false },
  query_metrics: { sideEffects: false },
  run_tests: {
    sideEffects: false,
    check: (report: CiRun) =>
      report.status === 'FAIL'
        ? { message: `tests failed: ${report.signature}`, code: 'TESTS_FAILED' }
        : undefined,
  },
  read_fixture: { sideEffects: false },
};
