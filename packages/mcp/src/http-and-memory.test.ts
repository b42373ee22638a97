import path from 'node:path';
import { SqliteLedger } from '@recourse/core/sqlite';
import { PostgresLedger } from '@recourse/store-postgres';
import { afterEach, describe, expect, it } from 'vitest';
import { startFixtureHttp } from '../test-support/fixture-server.js';
import { contractOf, httpClient, tempDir, textOf } from '../test-support/harness.js';
import type { RecoveryProxyOptions } from './index.js';
import { createRecoveryProxy, shellResources, urlResource } from './index.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

/** The proxy served over streamable HTTP in this process, in front of `upstreamUrl`. */
async function serve(upstreamUrl: string, options: Partial<RecoveryProxyOptions> = {}) {
  const proxy = createRecoveryProxy({
    upstream: { url: upstreamUrl },
    retry: { baseDelayMs: 1 },
    ...options,
  });
  const listener = await proxy.listen({ host: '127.0.0.1', port: 0 });
  cleanup.push(() => proxy.close());
  return listener;
}

describe('served over streamable HTTP, upstream over streamable HTTP', () => {
  it('is transparent on success: tools/list and tools/call results equal', async () => {
    const upstream = await startFixtureHttp();
    cleanup.push(() => upstream.close());
    const { url } = await serve(upstream.url);
    expect(url).toMatch(/\/mcp$/);
    const [direct, proxied] = await Promise.all([httpClient(upstream.url), httpClient(url)]);
    cleanup.push(
      () => direct.close(),
      () => proxied.close(),
    );
    expect(await proxied.listTools()).toEqual(await direct.listTools());
    const read = { name: 'read_note', arguments: { id: 'h1' } };
    expect(await proxied.callTool(read)).toEqual(await direct.callTool(read));
  });

  it("passes the client's authorization upstream", async () => {
    const upstream = await startFixtureHttp();
    cleanup.push(() => upstream.close());
    const seen: (string | undefined)[] = [];
    const original = upstream.onRequest;
    upstream.onRequest = (headers) => {
      seen.push(String(headers.authorization));
      original?.(headers);
    };
    const { url } = await serve(upstream.url);
    const client = await httpClient(url, { authorization: 'Bearer client-token' });
    cleanup.push(() => client.close());
    await client.callTool({ name: 'read_note', arguments: { id: 'a' } });
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((value) => value === 'Bearer client-token')).toBe(true);
  });

  it('a 403 on one tool blocks the same resource through another tool; the rest works', async () => {
    const upstream = await startFixtureHttp();
    cleanup.push(() => upstream.close());
    const { url } = await serve(upstream.url, {
      policies: {
        get_repo: {
          resource: (input: { repo: string }) => urlResource(`https://github.com/${input.repo}`),
        },
        shell: { resource: (input: { command: string }) => shellResources(input.command) },
      },
    });
    const client = await httpClient(url);
    cleanup.push(() => client.close());
    const denied = contractOf(
      await client.callTool({ name: 'get_repo', arguments: { repo: 'acme/secret' } }),
    );
    expect(denied).toMatchObject({ failure_class: 'AUTHORIZATION', retry_same_action: false });
    const bypass = contractOf(
      await client.callTool({
        name: 'shell',
        arguments: { command: 'git clone https://github.com/ACME/Secret.git' },
      }),
    );
    expect(bypass.status).toBe('BLOCKED');
    expect(upstream.state.runs.shell).toBeUndefined();
    // Another resource, through the same tool: the session goes on.
    const other = await client.callTool({ name: 'shell', arguments: { command: 'ls /tmp' } });
    expect(textOf(other)).toBe('ran ls /tmp');
  });

  it('a poison tool is refused before it runs after a proxy restart (SQLite ledger)', async () => {
    const upstream = await startFixtureHttp();
    cleanup.push(() => upstream.close());
    const file = path.join(tempDir(), 'ledger.sqlite');
    const call = { name: 'check_value', arguments: { value: 3 } };
    const first = new SqliteLedger({ path: file });
    const before = await serve(upstream.url, { ledger: first, runId: 'poison-run' });
    const client = await httpClient(before.url);
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(contractOf(await client.callTool(call)));
    expect(answers.map((answer) => answer.recommended_recovery)).toEqual([
      'REPAIR',
      'REPAIR',
      'REPLAN',
    ]);
    await client.close();
    await before.close();
    await first.close();
    const runs = upstream.state.runs.check_value;

    const second = new SqliteLedger({ path: file });
    cleanup.push(() => second.close());
    const after = await serve(upstream.url, { ledger: second, runId: 'poison-run' });
    const restarted = await httpClient(after.url);
    cleanup.push(() => restarted.close());
    const refused = contractOf(await restarted.callTool(call));
    expect(refused).toMatchObject({ code: 'POISON', retry_same_action: false });
    expect(upstream.state.runs.check_value).toBe(runs);
    expect(textOf(await restarted.callTool({ name: 'check_value', arguments: { value: 4 } }))).toBe(
      'ok 4',
    );
  });

  it('two proxies on one PostgreSQL ledger apply one write', async () => {
    const upstream = await startFixtureHttp();
    cleanup.push(() => upstream.close());
    const schema = `recourse_mcp_${process.pid}_${Date.now() % 100_000}`;
    const connectionString = 'postgres://postgres@127.0.0.1:5432/test';
    const ledgers = [0, 1].map(() => new PostgresLedger({ connectionString, schema }));
    cleanup.push(async () => {
      for (const ledger of ledgers) await ledger.close();
    });
    const proxies = await Promise.all(
      ledgers.map((ledger) => serve(upstream.url, { ledger, runId: 'shared-run' })),
    );
    const clients = await Promise.all(proxies.map((proxy) => httpClient(proxy.url)));
    cleanup.push(async () => {
      for (const client of clients) await client.close();
    });
    const call = { name: 'write_entry', arguments: { id: 'pg-1' } };
    const results = await Promise.all(clients.map((client) => client.callTool(call)));
    expect(upstream.state.writes).toEqual(['pg-1']);
    expect(results.map(textOf)).toEqual(['wrote pg-1', 'wrote pg-1']);
  });
});
