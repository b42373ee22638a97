/** Time, injected so that tests drive it. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /**
   * Resolves after `ms`; rejects with `signal.reason` when the signal aborts. With
   * `unref`, a pending sleep does not keep the process alive (background work).
   */
  sleep(
    ms: number,
    signal?: AbortSignal | undefined,
    options?: { unref?: boolean | undefined },
  ): Promise<void>;
}

/** A source of numbers in [0, 1), injected so that jitter is reproducible. */
export type RandomSource = () => number;

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep(ms, signal, options) {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      if (options?.unref) timer.unref();
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  },
};

export const systemRandom: RandomSource = Math.random;
