import { createServer } from 'node:net';
import {
  createConsoleTrace,
  createRecovery,
  isToolCallFailure,
  type RecoveryEvent,
} from '@recourse/ai-sdk';
import type { Ledger } from '@recourse/core';
import { LedgerUnavailableError } from '@recourse/core';
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
    const port = await closedPort();
    const ledger = unreachable[kind]!(port);
    let executions = 0;
    const events: RecoveryEvent[] = [];
    const lines: string[] = [];
    const trace = createConsoleTrace({ color: false, write: (line) => lines.push(line) });
    const recovery = createRecovery({
      runId: 'run-store-down',
      ledger,
      retry: { baseDelayMs: 0 }, // the claim is retried as usual; no need to wait for it here
      policies: { transfer: { sideEffects: true } },
      onEvent: (event) => {
        events.push(event);
        trace(event);
      },
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
      // Said once, when it happened (the claim was retried), with where and why.
      const target = `127.0.0.1:${port}`;
      const said = events.filter((event) => event.type === 'ledger.unavailable');
      expect(said).toEqual([expect.objectContaining({ store: kind, target })]);
      expect(said[0]).toMatchObject({ message: expect.stringContaining('ECONNREFUSED') });
      const traced = lines.filter((line) => line.includes('ledger unreachable'));
      expect(traced).toHaveLength(1);
      expect(traced[0]).toContain(`${kind} at ${target}`);
      expect(traced[0]).toContain('ECONNREFUSED');
    } finally {
      await ledger.close?.();
    }
  }, 30_000);
});

describe.each(Object.keys(unreachable))('%s ledger errors', (kind) => {
  it('name the host:port and carry the connection error as cause', async () => {
    const port = await closedPort();
    const ledger = unreachable[kind]!(port);
    try {
      const error: unknown = await ledger.claim({ key: 'k-1', payloadHash: 'h' }).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(LedgerUnavailableError.isInstance(error)).toBe(true);
      const unavailable = error as LedgerUnavailableError;
      expect(unavailable.target).toBe(`127.0.0.1:${port}`);
      expect(unavailable.message).toMatch(
        new RegExp(`^${kind} ledger unavailable: .*\\(127\\.0\\.0\\.1:${port}\\)$`),
      );
      expect(unavailable.message).toContain('ECONNREFUSED');
      expect(unavailable.message).not.toContain('postgres@');
      expect(unavailable.cause).toBeInstanceOf(Error);
    } finally {
      // `close` is part of every Ledger.
      await ledger.close();
    }
  }, 30_000);
});
