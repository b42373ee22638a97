import type { Clock } from '../../clock.js';
import type { EngineOptions } from '../options/recovery-options.js';

/** The lease of a claim under an engine: over at once, so a resumed execution takes it over. */
export const engineLeaseMs = 1;
/** Waits this long or longer go through the engine's own sleep. */
export const engineSleepMinMs = 1_000;

/** What a run under a durable engine adds to its calls (see `EngineOptions`). */
export interface EngineRun {
  /**
   * Keys this execution holds a claim on. Their leases are over at once, so a duplicate in
   * this execution must wait here: only an earlier execution's claim is taken over.
   */
  readonly held: Set<string>;
  /** Sleeps `ms`: the engine's sleep from `engineSleepMinMs` on, else the clock's. */
  sleep(ms: number, signal?: AbortSignal | undefined): Promise<void>;
}

export function createEngineRun(options: EngineOptions, clock: Clock): EngineRun {
  const durable = options.sleep;
  return {
    held: new Set(),
    async sleep(ms, signal) {
      if (durable && ms >= engineSleepMinMs) {
        signal?.throwIfAborted();
        await durable(ms);
        signal?.throwIfAborted();
        return;
      }
      await clock.sleep(ms, signal);
    },
  };
}
