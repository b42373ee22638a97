import { ExponentialBackoff, handleAll, retry } from 'cockatiel';
import { operationOf } from '../job-steps.js';
import { freshKey, outcomeFromError } from './baseline-outcome.js';
import type { Strategy } from './strategy.js';

/**
 * cockatiel's README retry: `retry(handleAll, { maxAttempts: 3, backoff: new
 * ExponentialBackoff() })` (128 ms initial, ×2, decorrelated jitter, 30 s cap). Its timers
 * run on virtual time and its jitter draws from the seeded `Math.random`; the job's
 * deadline is the `execute` signal (cockatiel stops retrying once it is aborted).
 */
export const cockatielStrategy: Strategy = {
  name: 'cockatiel',
  kind: 'baseline',
  description: 'cockatiel retry(handleAll, maxAttempts 3, ExponentialBackoff), new key per attempt',
  start: () => {
    const policy = retry(handleAll, { maxAttempts: 3, backoff: new ExponentialBackoff() });
    return {
      createJob: () => ({
        async call({ input, send, signal }) {
          try {
            await policy.execute(() => send(freshKey(operationOf(input))), signal);
            return { ok: true };
          } catch (error) {
            return outcomeFromError(error);
          }
        },
      }),
    };
  },
};
