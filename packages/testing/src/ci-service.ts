import { HttpResponse, http } from 'msw';

/**
 * A CI service over HTTP (msw): every POST https://ci.test/runs is a test run, answered 200
 * with the next of `reports` (the last one again once they run out). Whether the job was
 * done is in the body only, which only a `check` can read. `runs` records each request body.
 */
export function createCiService(reports: readonly unknown[]) {
  const runs: unknown[] = [];
  const handler = http.post('https://ci.test/runs', async ({ request }) => {
    runs.push(await request.json());
    return HttpResponse.json(reports[Math.min(runs.length, reports.length) - 1] as object);
  });
  return { handler, runs };
}
