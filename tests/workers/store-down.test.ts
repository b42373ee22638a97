import { createServer } from 'node:net';
import { createRecovery, isToolCallFailure } from '@recourse/ai-sdk';
import type { Ledger } from '@recourse/core';
import { PostgresLedger } from '@recourse/store-postgres';
import { RedisLedger } from '@recourse/store-redis';
import { tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

/** A local port nothing listens on: connections are refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

const unreachable: Record<string, (port: number) => Ledger> = {
  redis: (port) => new RedisLedger({ url: `redis://127.0.0.1:${port}` }),
  postgres: (port) =>
    new PostgresLedger({ connectionString: `postgres://postgres@127.0.0.1:${port}/test` }),
};

describe.each(Object.keys(unreachable))('%s ledger that cannot be reached', (kind) => {
  it('fails closed: the write is never executed and the model is told LEDGER_UNAVAILABLE', async () => {
    const ledger = unreachable[kind]!(await closedPort());
    let executions = 0;
    const recovery = createRecovery({
      runId: 'run-store-down',
      ledger,
      retry: { baseDelayMs: 0 }, // the claim is retried as usual; no need to wait for it here
      policies: { transfer: { sideEffects: true } },
    });
    const tools = recovery.tools({
      transfer: tool({
        inputSchema: z.object({ op: z.number(), amount: z.number() }),
        execute: async () => {
          executions++;
          return { transferId: 't-1' };
        },
      }),
    });
    try {
      const result = await tools.transfer.execute?.(
        { op: 1, amount: 500 },
        { toolCallId: 'call-1', messages: [], context: {} },
      );
      expect(executions).toBe(0);
      expect(isToolCallFailure(result)).toBe(true);
      // What the model reads is the JSON of the returned contract.
      expect(JSON.parse(JSON.stringify(result))).toMatchObject({
        status: 'FAILED',
        recommended_recovery: 'ABORT',
        retry_same_action: false,
        code: 'LEDGER_UNAVAILABLE',
      });
      expect(recovery.outcome()).toMatchObject({ status: 'FAILED', reason: 'LEDGER_UNAVAILABLE' });
    } finally {
      await ledger.close?.();
    }
  }, 30_000);
});
