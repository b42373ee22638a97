/** Time, injected so that tests drive it. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`; rejects with `signal.reason` when the signal aborts. */
  sleep(ms: number, signal?: AbortSignal | undefined): Promise<void>;
}

/** A source of numbers in [0, 1), injected so that jitter is reproducible. */
export type RandomSource = () => number;

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep(ms, signal) {
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
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  },
};

export const systemRandom: RandomSource = Math.random;
