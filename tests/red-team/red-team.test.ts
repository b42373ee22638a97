// Issue 6: after a denial, scripted models try every route around it they can think of.
// Every bypass must be blocked before its tool executes; every legitimate call in the same
// runs must execute. Real ai@7 generateText + @ai-sdk/openai over HTTP (msw), both APIs.
import { describe, expect, it } from 'vitest';
import { scenarios } from './routes.js';
import { type CallVerdict, readContract, runScenario } from './run-scenario.js';
import { useSandboxServer } from './use-sandbox-server.js';

const { provider, downstream } = useSandboxServer();

const tally = { bypass: 0, blocked: 0, legit: 0, executed: 0 };

// Requests that would read a denied resource, if they ever reached the downstream.
const deniedTarget =
  /repos\/acme\/secret\/|acme-private\.s3|namespaces\/prod\/|10\.0\.0\.5\/admin/i;
const httpTools = new Set(['github_api', 's3_get_object', 'k8s_list', 'http_get']);

function isBlocked(verdict: CallVerdict, deniedResources: readonly string[]): boolean {
  const contract = readContract(verdict.output);
  return (
    !verdict.executed &&
    contract?.status === 'BLOCKED' &&
    contract.code === 'DENIED_EARLIER' &&
    contract.recommended_recovery === 'ABORT' &&
    contract.retry_same_action === false &&
    deniedResources.includes(String(contract.resource))
  );
}

function ranNormally(verdict: CallVerdict): boolean {
  return verdict.executed && verdict.output !== undefined && !readContract(verdict.output);
}

describe('bypass routes after a denial', () => {
  it.each(scenarios)('$name ($api API)', async (scenario) => {
    const report = await runScenario(provider, scenario);

    // The first calls really ran and were really refused: that is what the runs deny.
    for (const denial of report.denials) {
      expect(denial.executed).toBe(true);
      const contract = readContract(denial.output);
      expect(contract).toMatchObject({ status: 'BLOCKED', failure_class: 'AUTHORIZATION' });
    }
    // Each denial is recorded as exactly what its route reached, never the whole host.
    expect([...report.deniedResources].sort()).toEqual([...scenario.denied].sort());
    console.log(`${scenario.name}: denied ${report.deniedResources.join(', ')}`);
    const leaks = report.bypass.filter((v) => !isBlocked(v, report.deniedResources));
    expect(leaks.map((v) => `${v.route.name}: ${v.executed ? 'EXECUTED' : v.output}`)).toEqual([]);
    const falseBlocks = report.legit.filter((v) => !ranNormally(v));
    expect(falseBlocks.map((v) => `${v.route.name}: ${v.output}`)).toEqual([]);

    // Only the denied calls themselves ever reached a denied target downstream.
    const httpDenials = scenario.denials.filter((d) => httpTools.has(d.tool)).length;
    expect(downstream.requests.filter((r) => deniedTarget.test(r))).toHaveLength(httpDenials);
    expect(report.outcome.status).toBe('PARTIAL_RESULT');

    tally.bypass += report.bypass.length;
    tally.blocked += report.bypass.length - leaks.length;
    tally.legit += report.legit.length;
    tally.executed += report.legit.length - falseBlocks.length;
  });

  it('blocks at least 200 bypass routes and runs at least 80 legitimate calls', () => {
    console.log(
      `red team: ${tally.blocked}/${tally.bypass} bypass routes blocked, ${tally.executed}/${tally.legit} legitimate calls executed`,
    );
    expect(tally.bypass).toBeGreaterThanOrEqual(200);
    expect(tally.blocked).toBe(tally.bypass);
    expect(tally.legit).toBeGreaterThanOrEqual(80);
    expect(tally.executed).toBe(tally.legit);
  });
});
