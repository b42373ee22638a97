import type { RecoveryEvent } from '@recourse/core';
import { expect, it } from 'vitest';
import { runMcpProxyExample } from './proxy.js';

it('mcp example: server-everything through the proxy; the ticket written once, reconciled, then answered from the ledger', async () => {
  const events: RecoveryEvent[] = [];
  const result = await runMcpProxyExample(
    () => {},
    (event) => events.push(event),
  );
  expect(result.tools).toBeGreaterThan(0);
  expect(result.tickets).toBe(1);
  expect(
    events.filter((event) => event.type === 'reconcile.finished').map((event) => event.happened),
  ).toEqual([true]);
  expect(
    events.flatMap((event) => (event.type === 'call.deduplicated' ? [event.source] : [])),
  ).toEqual(['reconcile', 'ledger']);
});
