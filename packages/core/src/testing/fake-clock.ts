import type { Clock } from '../clock.js';

interface Timer {
  at: number;
  order: number;
  resolve: () => void;
}

/** A clock that only moves when told. Sleepers wake in time order as it advances. */
export interface FakeClock extends Clock {
  /** Moves time forward by `ms`, waking every sleeper due on the way. */
  advance(ms: number): Promise<void>;
  /** Moves time to the next pending sleeper's wake-up and wakes it. False when none. */
  next(): Promise<boolean>;
  /** Wakes every pending sleeper, in order, including ones they schedule. */
  runAll(limit?: number): Promise<void>;
  /** The delays requested from `sleep`, in call order. */
  readonly sleeps: number[];
  /** Sleepers not yet woken. */
  pending(): number;
}

export function createFakeClock(start = 0): FakeClock {
  let current = start;
  let order = 0;
  const timers: Timer[] = [];
  const sleeps: number[] = [];
  // Let promise chains waiting on woken sleepers run before the next timer fires.
  const settle = async () => {
    for (let i = 0; i < 20; i++) await Promise.resolve();
  };
  const wakeDue = async (until: number) => {
    for (;;) {
      timers.sort((a, b) => a.at - b.at || a.order - b.order);
      const first = timers[0];
      if (!first || first.at > until) break;
      timers.shift();
      current = Math.max(current, first.at);
      first.resolve();
      await settle();
    }
    current = Math.max(current, until);
  };
  return {
    sleeps,
    now: () => current,
    sleep(ms, signal) {
      sleeps.push(ms);
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) {
          reject(signal.reason);
          return;
        }
        const timer: Timer = { at: current + Math.max(0, ms), order: order++, resolve };
        timers.push(timer);
        signal?.addEventListener(
          'abort',
          () => {
            const index = timers.indexOf(timer);
            if (index >= 0) timers.splice(index, 1);
            reject(signal.reason);
          },
          { once: true },
        );
      });
    },
    async advance(ms) {
      await settle();
      await wakeDue(current + ms);
    },
    async next() {
      await settle();
      timers.sort((a, b) => a.at - b.at || a.order - b.order);
      const first = timers[0];
      if (!first) return false;
      await wakeDue(first.at);
      return true;
    },
    async runAll(limit = 10_000) {
      for (let i = 0; i < limit; i++) {
        await settle();
        if (timers.length === 0) return;
        await this.next();
      }
      throw new Error(`FakeClock.runAll: more than ${limit} timers; a sleep loop never ends`);
    },
    pending: () => timers.length,
  };
}
