import { createRecovery } from '@recourse/ai-sdk';
import { callContext } from '@recourse/core';
import { describe, expect, it } from 'vitest';

describe('recovery.tools', () => {
  it('copies each tool with its prototype and non-enumerable fields, replacing only execute', async () => {
    const proto = { kind: 'function-tool' };
    const original = Object.create(proto, {
      description: { value: 'Refund', enumerable: true },
      hidden: { value: 'kept', enumerable: false },
      execute: {
        value: async (input: { id: string }) => `done ${input.id} ${callContext().attempt}`,
        enumerable: true,
        writable: true,
      },
    });
    const clientOnly = { description: 'no execute' };
    const recovery = createRecovery({ runId: 'run-w1' });

    const wrapped = recovery.tools({ refund: original, ask: clientOnly });

    expect(Object.keys(wrapped)).toEqual(['refund', 'ask']);
    expect(wrapped.ask).toBe(clientOnly);
    expect(wrapped.refund).not.toBe(original);
    expect(Object.getPrototypeOf(wrapped.refund)).toBe(proto);
    expect(wrapped.refund.hidden).toBe('kept');
    expect(wrapped.refund.description).toBe('Refund');
    expect(wrapped.refund.execute).not.toBe(original.execute);
    expect(await wrapped.refund.execute({ id: 'p-1' }, { toolCallId: 'c1', messages: [] })).toBe(
      'done p-1 1',
    );
  });

  it('drains a streaming tool inside the call and returns its last value', async () => {
    let attempts = 0;
    const recovery = createRecovery({ runId: 'run-w2', retry: { baseDelayMs: 0 } });
    const { progress } = recovery.tools({
      progress: {
        execute: async function* () {
          attempts++;
          yield 'started';
          if (attempts === 1)
            throw Object.assign(new Error('Service Unavailable'), { status: 503 });
          yield 'finished';
        },
      },
    });
    const execute = progress.execute as unknown as (
      input: unknown,
      options: unknown,
    ) => Promise<unknown>;
    expect(await execute({}, { toolCallId: 'c1' })).toBe('finished');
    expect(attempts).toBe(2); // the mid-stream 503 was retried
  });

  it('wrapping is idempotent: the same recovery returns its copy, another recovery wraps the original', async () => {
    const recovery = createRecovery({ runId: 'run-w3' });
    const original = { execute: async () => callContext().runId };
    const once = recovery.tools({ refund: original });
    const twice = recovery.tools(once);
    expect(twice.refund).toBe(once.refund);

    const other = createRecovery({ runId: 'run-w4' });
    const moved = other.tools(once);
    const execute = moved.refund.execute as unknown as (i: unknown, o: unknown) => Promise<unknown>;
    // One layer, the new recovery's: the call runs in its context, not nested in the first.
    expect(await execute({}, { toolCallId: 'c1' })).toBe('run-w4');
  });
});
