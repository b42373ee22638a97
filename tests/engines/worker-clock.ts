import type { Clock } from '@recourse/core';
import type { WaitScenario } from './dbos-protocol.js';

export interface WorkerClock extends Clock {
  readonly sleeps: number[];
  readonly sentAt: number[];
}

/**
 * The wait scenario's clock. In the first execution a wait of a second or more never ends
 * (`stop` is called: the process is killed there, and no timer anywhere would finish it).
 * A resumed execution's clock starts `restartAfterMs` later and jumps over its waits, so
 * ten minutes pass without being waited. Without a scenario: the system clock.
 */
export function createWorkerClock(
  wait: WaitScenario | undefined,
  first: boolean,
  stop: () => Promise<void>,
): WorkerClock {
  const sleeps: number[] = [];
  const sentAt: number[] = [];
  let skew = first || wait === undefined ? 0 : wait.restartAfterMs;
  return {
    sleeps,
    sentAt,
    now: () => Date.now() + skew,
    async sleep(ms, signal, options) {
      // Background timers (the ledger's deadlines) keep real time; the run's waits do not.
      if (wait !== undefined && ms >= 1_000 && options?.unref !== true) {
        sleeps.push(ms);
        if (first) await stop();
        skew += ms;
        return;
      }
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, ms);
        if (options?.unref) timer.unref();
        signal?.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(signal.reason);
        });
      });
    },
  };
}
