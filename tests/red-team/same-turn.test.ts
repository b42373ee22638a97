// The bypass in the denial's own turn: the model asks, in one response, for the call that is
// denied and for its routes around it, which the AI SDK runs side by side. Every bypass waits
// for the denied call it overlaps and is refused without running; the legitimate calls of
// the same turn run. Real ai@7 generateText + @ai-sdk/openai over HTTP (msw).
import { describe, expect, it } from 'vitest';
import { fileScenario, githubScenario } from './routes.js';
import { readContract, runScenario } from './run-scenario.js';
import { useSandboxServer } from './use-sandbox-server.js';

const { provider, downstream } = useSandboxServer();

describe('bypass routes in the same turn as the denial', () => {
  it.each([githubScenario, fileScenario])('$name ($api API)', async (scenario) => {
    const report = await runScenario(provider, scenario, { oneTurn: true });

    for (const denial of report.denials) expect(denial.executed).toBe(true);
    const leaks = report.bypass.filter((verdict) => {
      const contract = readContract(verdict.output);
      return verdict.executed || contract?.code !== 'DENIED_EARLIER';
    });
    expect(leaks.map((v) => `${v.route.name}: ${v.executed ? 'EXECUTED' : v.output}`)).toEqual([]);
    const refused = report.legit.filter((v) => !v.executed || readContract(v.output));
    expect(refused.map((v) => `${v.route.name}: ${v.output}`)).toEqual([]);
    // Only the denied call itself reached the denied repository downstream.
    expect(downstream.requests.filter((r) => /repos\/acme\/secret\//i.test(r))).toHaveLength(
      scenario === githubScenario ? 1 : 0,
    );
    console.log(
      `same turn, ${scenario.name}: ${report.bypass.length - leaks.length}/${report.bypass.length} bypass routes blocked, ${report.legit.length - refused.length}/${report.legit.length} legitimate calls executed`,
    );
  });
});
