import { MemoryLedger, type RecoveryEvent } from '@recourse/core';
import { afterAll, describe, expect, it } from 'vitest';
import { contractOf, inProcessProxy, textOf } from '../test-support/harness.js';
import { restartDelayMs } from './upstream-link.js';

describe('a stdio upstream that dies', () => {
  const events: RecoveryEvent[] = [];
  const lines: string[] = [];
  const setup = inProcessProxy({
    ledger: new MemoryLedger(),
    onEvent: (event) => events.push(event),
    trace: (line) => lines.push(line),
  });
  afterAll(async () => (await setup).proxy.close());

  it('killed mid-call: the client gets a contract, and the proxy keeps serving', async () => {
    const { client } = await setup;
    expect(textOf(await client.callTool({ name: 'read_note', arguments: { id: 'x' } }))).toBe(
      'note x',
    );
    const contract = contractOf(await client.callTool({ name: 'die', arguments: {} }));
    expect(contract).toMatchObject({
      failure_class: 'UNKNOWN_OUTCOME',
      retry_same_action: false,
    });
    // The next call starts the upstream again (re-initialised with the client's parameters).
    expect(textOf(await client.callTool({ name: 'read_note', arguments: { id: 'y' } }))).toBe(
      'note y',
    );
    expect(await client.listTools()).toMatchObject({ tools: expect.any(Array) });
    expect(lines.some((line) => /upstream closed/.test(line))).toBe(true);
    expect(lines.some((line) => /started again/.test(line))).toBe(true);
  });

  it('the write that died with it is in doubt: its repeat is refused, not sent', async () => {
    const { client } = await setup;
    const repeat = contractOf(await client.callTool({ name: 'die', arguments: {} }));
    expect(repeat.retry_same_action).toBe(false);
    const stats = JSON.parse(textOf(await client.callTool({ name: 'stats', arguments: {} })));
    // The restarted upstream never ran `die`.
    expect(stats.runs.die).toBeUndefined();
  });

  it('restarts back off after repeated deaths', () => {
    expect([1, 2, 3, 4, 9].map(restartDelayMs)).toEqual([0, 200, 800, 3200, 10_000]);
  });
});
