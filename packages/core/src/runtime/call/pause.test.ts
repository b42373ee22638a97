import { describe, expect, it } from 'vitest';
import { createHarness } from '../../../test-support/runtime-harness.js';
import { callContext } from '../call-context.js';

class Paused extends Error {
  readonly paused = true;
}
const isPause = (error: unknown) => error instanceof Paused;

describe("a framework's pause thrown through a tool (isPause)", () => {
  it('is rethrown untouched, never classified, and the write runs again under the same key', async () => {
    const h = createHarness({ policies: { refund: { sideEffects: true } } });
    const keys: string[] = [];
    const pause = new Paused('waiting for a human');
    let approved = false;
    const execute = () => {
      keys.push(callContext().idempotencyKey);
      if (!approved) throw pause;
      return 'refunded';
    };
    const call = () =>
      h.runtime.execute({
        toolName: 'refund',
        toolCallId: 'call_1',
        input: { id: 7 },
        execute,
        isPause,
      });

    await expect(call()).rejects.toBe(pause);
    expect(h.events.map((e) => e.type)).not.toContain('failure.classified');
    approved = true;
    // The claim was let go: the resumed call runs at once, neither in flight nor in doubt.
    await expect(call()).resolves.toMatchObject({ ok: true, value: 'refunded' });
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    expect(h.runtime.outcome()).toMatchObject({ status: 'COMPLETED', recoveries: [] });
  });

  it('without isPause the same throw is a failure like any other', async () => {
    const h = createHarness({ policies: { refund: { sideEffects: false } } });
    const result = await h.run('refund', { id: 7 }, () => {
      throw new Paused('waiting for a human');
    });
    expect(result.ok).toBe(false);
  });
});
