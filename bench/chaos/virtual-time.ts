import type { Clock } from '@recourse/core';

interface Timer {
  at: number;
  seq: number;
  fire: () => void;
  cancelled: boolean;
}

/**
 * A discrete-event clock for the chaos benchmark. Every sleep (the runtime's `clock`, and
 * the global `setTimeout` that p-retry and cockatiel call) is a timer on a virtual
 * timeline; the driver waits until all promise work has settled, then jumps to the next
 * timer. Backoffs of minutes cost no real time, and a run is reproducible.
 */
export interface VirtualTime extends Clock {
  /** Runs `main` with the global timers (and `Math.random`, seeded) virtualised. */
  run<T>(main: () => Promise<T>): Promise<T>;
  /** Calls `fire` after `ms` of virtual time; the returned function cancels it. */
  after(ms: number, fire: () => void): () => void;
  /** Timers fired so far. */
  fired(): number;
}

export function createVirtualTime(random: () => number): VirtualTime {
  let now = 0;
  let seq = 0;
  let fired = 0;
  const heap: Timer[] = [];
  const schedule = (ms: number, fire: () => void): Timer => {
    const timer: Timer = { at: now + Math.max(0, ms || 0), seq: seq++, fire, cancelled: false };
    push(heap, timer);
    return timer;
  };
  const realSetImmediate = globalThis.setImmediate;
  const settle = () => new Promise<void>((resolve) => realSetImmediate(resolve));

  return {
    now: () => now,
    fired: () => fired,
    after(ms, fire) {
      const timer = schedule(ms, fire);
      return () => {
        timer.cancelled = true;
      };
    },
    sleep(ms, signal) {
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const timer = schedule(ms, resolve);
        signal?.addEventListener(
          'abort',
          () => {
            timer.cancelled = true;
            reject(signal.reason);
          },
          { once: true },
        );
      });
    },
    async run(main) {
      const saved = {
        setTimeout: globalThis.setTimeout,
        clearTimeout: globalThis.clearTimeout,
        random: Math.random,
      };
      const fakeSetTimeout = (fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) =>
        timerHandle(schedule(ms ?? 0, () => fn(...args)));
      globalThis.setTimeout = fakeSetTimeout as unknown as typeof setTimeout;
      globalThis.clearTimeout = ((handle: { timer?: Timer } | undefined) => {
        if (handle?.timer) handle.timer.cancelled = true;
      }) as typeof clearTimeout;
      Math.random = random;
      let state:
        | { done: false }
        | { done: true; ok: true; value: unknown }
        | { done: true; ok: false; error: unknown } = { done: false };
      main().then(
        (value) => {
          state = { done: true, ok: true, value };
        },
        (error: unknown) => {
          state = { done: true, ok: false, error };
        },
      );
      try {
        let idle = 0;
        while (!state.done) {
          await settle();
          if (state.done) break;
          const next = pop(heap);
          if (!next) {
            // Nothing scheduled and not done: give real I/O a few turns, then give up.
            if (++idle > 100)
              throw new Error('virtual time: no timers left but the run is not done');
            continue;
          }
          idle = 0;
          if (next.cancelled) continue;
          now = Math.max(now, next.at);
          fired++;
          next.fire();
        }
      } finally {
        globalThis.setTimeout = saved.setTimeout;
        globalThis.clearTimeout = saved.clearTimeout;
        Math.random = saved.random;
      }
      const end = state as { done: true; ok: boolean; value?: unknown; error?: unknown };
      if (!end.ok) throw end.error;
      return end.value as Awaited<ReturnType<typeof main>>;
    },
  };
}

// What Node's Timeout object offers that libraries call (unref, ref, hasRef, refresh).
function timerHandle(timer: Timer) {
  const handle = {
    timer,
    unref: () => handle,
    ref: () => handle,
    hasRef: () => true,
    refresh: () => handle,
    [Symbol.toPrimitive]: () => timer.seq,
  };
  return handle;
}

const before = (a: Timer, b: Timer) => a.at < b.at || (a.at === b.at && a.seq < b.seq);

function push(heap: Timer[], timer: Timer): void {
  heap.push(timer);
  let i = heap.length - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!before(heap[i]!, heap[parent]!)) break;
    [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
    i = parent;
  }
}

function pop(heap: Timer[]): Timer | undefined {
  const top = heap[0];
  const last = heap.pop();
  if (!top || !last || heap.length === 0) return top;
  heap[0] = last;
  let i = 0;
  for (;;) {
    const left = 2 * i + 1;
    const right = left + 1;
    let smallest = i;
    if (left < heap.length && before(heap[left]!, heap[smallest]!)) smallest = left;
    if (right < heap.length && before(heap[right]!, heap[smallest]!)) smallest = right;
    if (smallest === i) return top;
    [heap[i], heap[smallest]] = [heap[smallest]!, heap[i]!];
    i = smallest;
  }
}
