import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CommandDeadlines } from './command-deadlines.js';

describe('CommandDeadlines', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('rejects a command unanswered for the timeout, not before, and stops ticking once idle', async () => {
    const deadlines = new CommandDeadlines(5_000);
    const outcome = deadlines.bound(new Promise<never>(() => {})).then(
      () => 'answered',
      (error: Error) => error.message,
    );
    let settled: string | undefined;
    void outcome.then((value) => {
      settled = value;
    });
    await vi.advanceTimersByTimeAsync(4_999);
    expect(settled).toBeUndefined();
    // Within one tick (a fifth of the timeout) past it.
    await vi.advanceTimersByTimeAsync(1_001);
    expect(settled).toBe('Command timed out after 5000 ms');
    // Nothing pending: the next tick stops the ticker.
    await vi.advanceTimersByTimeAsync(1_000);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('passes answers and failures through, the oldest command expiring first', async () => {
    const deadlines = new CommandDeadlines(5_000);
    await expect(deadlines.bound(Promise.resolve('OK'))).resolves.toBe('OK');
    await expect(deadlines.bound(Promise.reject(new Error('WRONGTYPE')))).rejects.toThrow(
      'WRONGTYPE',
    );
    const old = deadlines.bound(new Promise<never>(() => {}));
    old.catch(() => {});
    await vi.advanceTimersByTimeAsync(3_000);
    let answer!: (value: string) => void;
    const young = deadlines.bound(new Promise<string>((resolve) => (answer = resolve)));
    await vi.advanceTimersByTimeAsync(3_000);
    await expect(old).rejects.toThrow('timed out');
    answer('late but in time');
    await expect(young).resolves.toBe('late but in time');
    deadlines.close();
  });
});
