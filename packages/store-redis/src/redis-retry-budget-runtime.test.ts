import { randomUUID } from 'node:crypto';
import { createRecoveryRuntime, type ToolCallResult } from '@recourse/core';
import { createFakeClock, type FakeClock } from '@recourse/core/testing';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisRetryBudget, type RedisRetryBudget } from './index.js';

const url = process.env.RECOURSE_REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `recourse-test:${randomUUID()}:`;
const opened: RedisRetryBudget[] = [];

afterAll(async () => {
  for (const budget of opened) await budget.close();
  const admin = new Redis(url);
  const keys = await admin.keys(`${prefix}*`);
  if (keys.length > 0) await admin.del(...keys);
  await admin.quit();
});

/**
 * One worker process: its own Redis client and clock. An aborted call ends its run, so
 * each call is a new run (runtime), as agent runs in a worker come and go.
 */
function createWorker(name: string, keyPrefix = prefix) {
  const budget = createRedisRetryBudget({ url }, { keyPrefix, maxTokens: 10, tokenRatio: 1 });
  opened.push(budget);
  const clock = createFakeClock(1_000_000);
  let sent = 0;
  let runs = 0;
  const call = () => {
    const runtime = createRecoveryRuntime({
      runId: `run-${name}-${++runs}`,
      clock,
      random: () => 0.5,
      defaultPolicy: { sideEffects: false },
      retry: { budget, baseDelayMs: 0, maxAttempts: 3 },
    });
    // The dependency is down: a real fetch to a closed port (connection refused, TRANSIENT).
    return drive(
      clock,
      runtime.execute({
        toolName: 'inventory',
        toolCallId: `call-${runs}`,
        input: { sku: 'A-1' },
        execute: () => {
          sent++;
          return fetch('http://127.0.0.1:1/stock');
        },
      }),
    );
  };
  return { call, sent: () => sent };
}

/** Runs `promise` to completion, waking the fake clock's sleepers whenever it waits. */
async function drive(clock: FakeClock, promise: Promise<ToolCallResult>) {
  let settled = false;
  const done = promise.finally(() => {
    settled = true;
  });
  while (!settled) {
    await new Promise((resolve) => setImmediate(resolve));
    await clock.next();
  }
  return done;
}

const codeOf = (result: ToolCallResult) => (result.ok ? undefined : result.decision.code);

describe('two runtimes sharing a Redis retry budget', () => {
  it("once A's failures spend the shared bucket, B's first transient failure is not retried", async () => {
    const a = createWorker('a');
    const b = createWorker('b');
    const codes: (string | undefined)[] = [];
    for (let i = 0; i < 5 && codes.at(-1) !== 'DEPENDENCY_RETRY_BUDGET_EXHAUSTED'; i++) {
      codes.push(codeOf(await a.call()));
    }
    // A's first call fails three times in a row: the shared circuit opens, so its
    // second call's first failure is not retried (no probe is due on a stopped clock).
    expect(codes).toEqual(['ATTEMPTS_EXHAUSTED', 'DEPENDENCY_RETRY_BUDGET_EXHAUSTED']);
    expect(a.sent()).toBe(4);

    const result = await b.call();
    expect(b.sent()).toBe(1);
    expect(result).toMatchObject({
      ok: false,
      classification: { failureClass: 'TRANSIENT' },
      decision: { action: 'ABORT', code: 'DEPENDENCY_RETRY_BUDGET_EXHAUSTED' },
    });
  });

  it('a runtime on another bucket (another prefix) still retries the same failure', async () => {
    const fresh = createWorker('fresh', `${prefix}other:`);
    const result = await fresh.call();
    expect(fresh.sent()).toBe(3);
    expect(codeOf(result)).toBe('ATTEMPTS_EXHAUSTED');
  });
});
