import pRetry from 'p-retry';
import { operationOf } from '../job-steps.js';
import { freshKey, outcomeFromError } from './baseline-outcome.js';
import type { Strategy } from './strategy.js';

/**
 * `p-retry` with its defaults: 10 retries, exponential from 1 s (factor 2, no cap, no
 * jitter), every error except a non-network `TypeError`. Its timers run on virtual time;
 * the job's deadline is its `signal`.
 */
export const pRetryStrategy: Strategy = {
  name: 'p-retry',
  kind: 'baseline',
  description: 'p-retry defaults (10 retries, 1 s × 2ⁿ, no jitter), new key per attempt',
  start: () => ({
    createJob: () => ({
      async call({ input, send, signal }) {
        try {
          await pRetry(() => send(freshKey(operationOf(input))), { signal });
          return { ok: true };
        } catch (error) {
          return outcomeFromError(error);
        }
      },
    }),
  }),
};
