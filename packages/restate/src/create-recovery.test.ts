import { describe, expect, it } from 'vitest';
import { createRecovery, MemoryLedger, runIdOf } from './index.js';

/** The parts of a Restate context the adapter reads: the request's target and id. */
function contextOf(target: { service: string; handler: string; key?: string }, workflow: boolean) {
  return {
    request: () => ({ id: 'inv_1abc', target }),
    sleep: () => Promise.resolve(),
    ...(workflow ? { promise: () => ({}) } : {}),
  } as never;
}

describe('@recourse/restate', () => {
  it("a workflow's run is its name and key; anything else is its invocation, never an object's key", () => {
    expect(runIdOf(contextOf({ service: 'checkout', handler: 'run', key: 'order-7' }, true))).toBe(
      'checkout/order-7',
    );
    expect(runIdOf(contextOf({ service: 'cart', handler: 'add', key: 'user-1' }, false))).toBe(
      'inv_1abc',
    );
    expect(runIdOf(contextOf({ service: 'greeter', handler: 'greet' }, false))).toBe('inv_1abc');
    const long = runIdOf(
      contextOf({ service: 'checkout', handler: 'run', key: 'k'.repeat(300) }, true),
    );
    expect(long.length).toBeLessThanOrEqual(128);
    expect(long.startsWith('checkout/')).toBe(true);
  });

  it('createRecovery takes the run id from the context, checks its options, keeps the engine mode its own', () => {
    const ctx = contextOf({ service: 'checkout', handler: 'run', key: 'order-7' }, true);
    const recovery = createRecovery(ctx, { ledger: new MemoryLedger() });
    expect(recovery.runtime.runId).toBe('checkout/order-7');
    expect(createRecovery(ctx, { ledger: new MemoryLedger(), runId: 'own' }).runtime.runId).toBe(
      'own',
    );
    expect(() => createRecovery({} as never, {})).toThrow(
      expect.objectContaining({ field: 'ctx' }),
    );
    expect(() => createRecovery(ctx, { ledger: new MemoryLedger(), engine: {} } as never)).toThrow(
      expect.objectContaining({ field: 'engine' }),
    );
    expect(() =>
      createRecovery(ctx, { ledger: new MemoryLedger(), stopwhen: true } as never),
    ).toThrow(expect.objectContaining({ field: 'stopwhen' }));
  });

  it('binds the tools to the attempt: once Restate has ended it, a call sends nothing', async () => {
    const attempt = new AbortController();
    const ctx = {
      request: () => ({
        id: 'inv_1abc',
        target: { service: 'greeter', handler: 'greet' },
        attemptCompletedSignal: attempt.signal,
      }),
      sleep: () => Promise.resolve(),
    } as never;
    const recovery = createRecovery(ctx, { ledger: new MemoryLedger() });
    const signals: AbortSignal[] = [];
    const tools = recovery.tools(
      {
        send: {
          execute: async (
            _input: unknown,
            options: { abortSignal: AbortSignal; toolCallId: string },
          ) => {
            signals.push(options.abortSignal);
            return 'sent';
          },
        },
      },
      { send: { sideEffects: true } },
    );
    const options = { toolCallId: 'c1', messages: [], abortSignal: undefined as never };
    await expect(tools.send.execute({ n: 1 }, options)).resolves.toBe('sent');
    expect(signals[0]?.aborted).toBe(false);
    attempt.abort();
    // The signal the tool holds is the attempt's: a send under way is told to stop.
    expect(signals[0]?.aborted).toBe(true);
    await tools.send.execute({ n: 2 }, { ...options, toolCallId: 'c2' }).catch(() => undefined);
    expect(signals).toHaveLength(1);
  });
});
