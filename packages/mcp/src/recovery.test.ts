import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { MemoryLedger, type RecoveryEvent } from '@recourse/core';
import { createFakeClock } from '@recourse/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { startFixtureHttp } from '../test-support/fixture-server.js';
import { contractOf, textOf } from '../test-support/harness.js';
import { createRecoveryProxy, idempotencyKeyMeta, type RecoveryProxyOptions } from './index.js';

type Upstream = Awaited<ReturnType<typeof startFixtureHttp>>;
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

async function setup(options: Partial<RecoveryProxyOptions> = {}) {
  const upstream: Upstream = await startFixtureHttp();
  const events: RecoveryEvent[] = [];
  const proxy = createRecoveryProxy({
    upstream: { url: upstream.url },
    ledger: new MemoryLedger(),
    retry: { baseDelayMs: 1 },
    onEvent: (event) => events.push(event),
    ...options,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await proxy.connect(serverSide);
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  await client.connect(clientSide);
  cleanup.push(
    () => upstream.close(),
    () => proxy.close(),
  );
  return { upstream, proxy, client, events };
}

describe('recourse on tools/call', () => {
  it('a write that landed, whose response the client lost, re-issued as a new request: applied once', async () => {
    const { upstream, client } = await setup();
    const call = { name: 'write_entry', arguments: { id: 'w1', hang: true } };
    // The client gives up once the write has landed upstream (its progress says so).
    const giveUp = new AbortController();
    const lost = client.callTool(call, undefined, {
      signal: giveUp.signal,
      onprogress: () => giveUp.abort(new Error('the response stream broke')),
    });
    await expect(lost).rejects.toThrow(/stream broke/);
    expect(upstream.state.writes).toEqual(['w1']);

    // The client re-issues it as a new request; the first one answers upstream meanwhile.
    const again = client.callTool(call);
    for (const open of upstream.state.gates.splice(0)) open();
    expect(textOf(await again)).toBe('wrote w1');
    expect(textOf(await client.callTool(call))).toBe('wrote w1');
    expect(upstream.state.writes).toEqual(['w1']);
    // The key travelled upstream in _meta.
    expect(upstream.state.keys.write_entry).toHaveLength(1);
    expect(upstream.state.keys.write_entry?.[0]).toMatch(/write_entry/);
  });

  it('a write whose outcome is unknown is never sent again: the repeat gets the contract', async () => {
    const clock = createFakeClock(Date.now());
    const { upstream, client } = await setup({
      clock,
      policies: { write_entry: { timeoutMs: 5_000 } },
    });
    const call = { name: 'write_entry', arguments: { id: 'w2', hang: true } };
    // The proxy's deadline passes once the write has landed (it never answers).
    const landed = new Promise((resolve) => {
      upstream.state.onWrite = resolve;
    });
    const pending = client.callTool(call);
    await landed;
    await clock.advance(5_000);
    const first = contractOf(await pending);
    expect(first).toMatchObject({ failure_class: 'UNKNOWN_OUTCOME', retry_same_action: false });
    const repeat = contractOf(await client.callTool(call));
    expect(repeat.retry_same_action).toBe(false);
    expect(upstream.state.writes).toEqual(['w2']);
    // Other tools keep working: the session was not stopped.
    expect(textOf(await client.callTool({ name: 'read_note', arguments: { id: 'a' } }))).toBe(
      'note a',
    );
  });

  it('reconcile asks the upstream through callTool before anything is sent again', async () => {
    const clock = createFakeClock(Date.now());
    const { upstream, client } = await setup({
      clock,
      policies: {
        write_entry: {
          timeoutMs: 5_000,
          reconcile: async (input: { id: string }, info) => {
            const { callTool } = info as typeof info & {
              callTool: (name: string, args?: object) => Promise<unknown>;
            };
            const stats = JSON.parse(textOf(await callTool('stats', {})));
            return stats.writes.includes(input.id)
              ? { happened: true, result: { content: [{ type: 'text', text: 'reconciled' }] } }
              : { happened: false };
          },
        },
      },
    });
    const call = { name: 'write_entry', arguments: { id: 'w3', hang: true } };
    const landed = new Promise((resolve) => {
      upstream.state.onWrite = resolve;
    });
    const pending = client.callTool(call);
    await landed;
    await clock.advance(5_000);
    expect(textOf(await pending)).toBe('reconciled');
    expect(textOf(await client.callTool(call))).toBe('reconciled');
    expect(upstream.state.writes).toEqual(['w3']);
  });

  it('a response stream that breaks after the write landed: a contract; the re-issue is not sent', async () => {
    const { upstream, client } = await setup();
    const call = { name: 'cut_write', arguments: { id: 'c1' } };
    const first = contractOf(await client.callTool(call));
    expect(first).toMatchObject({ failure_class: 'UNKNOWN_OUTCOME', retry_same_action: false });
    expect(contractOf(await client.callTool(call)).retry_same_action).toBe(false);
    expect(upstream.state.writes).toEqual(['cut:c1']);
  });

  it("a client's cancellation of a read is passed upstream", async () => {
    const { upstream, client } = await setup();
    const cancelled = new Promise<string>((resolve) => {
      upstream.state.onCancelled = resolve;
    });
    const giveUp = new AbortController();
    const call = client.callTool({ name: 'slow_read', arguments: { id: 's1' } }, undefined, {
      signal: giveUp.signal,
      onprogress: () => giveUp.abort(new Error('the user pressed stop')),
    });
    await expect(call).rejects.toThrow(/pressed stop/);
    expect(await cancelled).toBe('s1');
  });

  it('a read that answers 503 is retried inside the call: the client sees the value', async () => {
    const { upstream, client, events } = await setup();
    const result = await client.callTool({ name: 'flaky_read', arguments: { id: 'r1' } });
    expect(result).toEqual({ content: [{ type: 'text', text: 'value r1' }] });
    expect(upstream.state.runs.flaky_read).toBe(2);
    expect(events.filter((event) => event.type === 'retry.scheduled')).toHaveLength(1);
  });

  it('every call carries the same key for the same operation', async () => {
    const { upstream, client } = await setup();
    await client.callTool({ name: 'flaky_read', arguments: { id: 'r2' } });
    const [first, second] = upstream.state.keys.flaky_read ?? [];
    expect(first).toBeDefined();
    expect(second).toBe(first);
    expect(idempotencyKeyMeta).toBe('io.recourse/idempotency-key');
  });
});
