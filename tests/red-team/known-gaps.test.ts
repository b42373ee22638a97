// Routes the scope extractors do not close yet, and one false block. Each is written as the
// test it should pass, marked `it.fails` until core's scope module is fixed (see the fix
// named in each comment). When a fix lands, its test starts passing and vitest reports it:
// drop the `.fails` then and move the route into routes.ts.
import { createOpenAI } from '@ai-sdk/openai';
import { createRecovery } from '@recourse/ai-sdk';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount } from 'ai';
import { describe, expect, it } from 'vitest';
import type { Route, Scenario } from './routes.js';
import { runScenario } from './run-scenario.js';
import { createSandboxTools, sandboxPolicies } from './sandbox-tools.js';
import { toAiSdkTools } from './sdk-tools.js';
import { useSandboxServer } from './use-sandbox-server.js';

const { provider } = useSandboxServer();

const denyNamespace: Route = {
  name: 'Kubernetes Forbidden',
  tool: 'k8s_list',
  input: { namespace: 'prod', kind: 'secrets' },
};
const denyFile: Route = {
  name: 'EACCES',
  tool: 'read_file',
  input: { path: '/srv/data/secrets/prod.env' },
};
const denyBucket: Route = {
  name: 'S3 AccessDenied',
  tool: 's3_get_object',
  input: { bucket: 'acme-private', key: 'report.csv' },
};
const denyDatabase: Route = {
  name: 'PostgreSQL 42501',
  tool: 'sql_query',
  input: { host: 'db.internal', database: 'billing', sql: 'select 1' },
};

const sh = (command: string): Route => ({ name: command, tool: 'shell', input: { command } });

/** Runs the denial, then the route; the route must not execute. */
async function expectBlocked(denial: Route, route: Route) {
  const scenario: Scenario = {
    name: route.name,
    api: 'chat',
    denials: [denial],
    bypass: [route],
    legit: [],
  };
  const report = await runScenario(provider, scenario);
  expect(report.denials[0]?.executed).toBe(true);
  expect(report.bypass[0]?.executed).toBe(false);
}

describe('known gaps (it.fails until core closes them)', () => {
  // extract-kubectl.ts: `--raw <path>` is ignored, so the call reaches the default namespace.
  // Fix: parse `/api/v1/namespaces/{ns}/…` and `/apis/{group}/{version}/namespaces/{ns}/…`
  // into that namespace; any other raw path reaches the whole cluster `k8s://{context}`.
  it.fails('kubectl get --raw into the denied namespace', () =>
    expectBlocked(denyNamespace, sh('kubectl get --raw /api/v1/namespaces/prod/secrets')));

  // extract-kubectl.ts: `kubectl proxy` (and `port-forward` to the API server) opens the whole
  // cluster to any local HTTP client, but reaches only the default namespace here.
  // Fix: `proxy` reaches `k8s://{context}`.
  it.fails('kubectl proxy, then curl through it', () =>
    expectBlocked(
      denyNamespace,
      sh('kubectl proxy & curl localhost:8001/api/v1/namespaces/prod/secrets'),
    ));

  // extract-files.ts: `ln` reports only the link it creates, not what the link points to, so
  // a symlink to the denied directory is a new name for it (pathResource follows no links).
  // Fix: `ln` also reaches every target operand (resolved against cwd).
  it.fails('a symlink to the denied directory', () =>
    expectBlocked(denyFile, sh('ln -s /srv/data/secrets /tmp/s && cat /tmp/s/prod.env')));

  // url-resource.ts: a `file:` URL goes to pathResource verbatim, so percent-escapes stay
  // (`%70rod.env`), while curl and fetch decode them. Fix: in urlResource's `file` branch,
  // decode the URL's pathname (`decodeURIComponent`, falling back to raw on a bad escape)
  // before pathResource; pathResource itself stays raw for real paths.
  it.fails('curl of a percent-encoded file: URL', () =>
    expectBlocked(denyFile, sh('curl file:///srv/data/secrets/%70rod.env')));
  it.fails('http_get of a percent-encoded file: URL', () =>
    expectBlocked(denyFile, {
      name: 'file URL',
      tool: 'http_get',
      input: { url: 'file:///srv/data/secrets/%70rod.env' },
    }));

  // url-resource.ts: S3's HTTPS endpoints are treated as ordinary web hosts. Fix: map
  // `{bucket}.s3[.-]{region}.amazonaws.com/{key}` (virtual-hosted) and
  // `s3[.-]{region}.amazonaws.com/{bucket}/{key}` (path-style) to `s3Resource(bucket, key)`.
  it.fails('curl of the bucket over virtual-hosted HTTPS', () =>
    expectBlocked(denyBucket, sh('curl https://acme-private.s3.amazonaws.com/report.csv')));
  it.fails('http_get of the bucket over path-style HTTPS', () =>
    expectBlocked(denyBucket, {
      name: 'path-style S3 URL',
      tool: 'http_get',
      input: { url: 'https://s3.eu-west-1.amazonaws.com/acme-private/report.csv' },
    }));

  // extract-psql.ts: `PGSERVICE=billing psql` fails closed (`*`), but the same service in a
  // conninfo string (`service=billing`) becomes the local server. pg_service.conf can name
  // any host and database. Fix: a `service=` key (or PGSERVICEFILE) reaches `*`.
  it.fails('psql with service= in a conninfo string', () =>
    expectBlocked(denyDatabase, sh('psql "service=billing" -c "select 1"')));

  // recovery-runtime.ts + scope-guard.ts: a call wider than a scope deny rule (GraphQL reaches
  // all of GitHub) is rightly refused, but the refusal is recorded as a run denial of the
  // call's whole reach, `https://github.com`, so with onDenial 'continue' every later GitHub
  // call is refused too. Fix: when the call is wider than the rule, the verdict names the
  // rule's resource (`rule.base`), and static-scope blocks are not recorded as run denials
  // (the rules are checked on every call anyway).
  it('a scope refusal of a wide call does not close the rest of the host', async () => {
    provider.reset([
      toolCall('shell', { command: 'curl https://api.github.com/graphql' }, { id: 'wide' }),
      toolCall('github_api', { repo: 'acme/public', path: 'README.md' }, { id: 'allowed' }),
      text('done'),
    ]);
    const { tools, executed } = createSandboxTools();
    const recovery = createRecovery({
      runId: 'red-team scope',
      policies: sandboxPolicies(tools),
      scope: { deny: ['https://github.com/acme/secret'] },
      onDenial: 'continue',
    });
    const openai = createOpenAI({ baseURL: provider.baseURL, apiKey: 'test' });
    await generateText({
      model: openai.chat('gpt-4o'),
      prompt: 'Read acme/public',
      tools: recovery.tools(toAiSdkTools(tools)),
      stopWhen: [isStepCount(5), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });
    expect(executed).toEqual(['allowed']);
  });
});
