import pRetry from 'p-retry';
import { operationOf } from '../job-steps.js';
import { freshKey, outcomeFromError } from './baseline-outcome.js';
import type { Strategy } from './strategy.js';

/**
 * `p-retry` with its defaults: 10 retries, exponential from 1 s (factor 2, no cap, no
 * jitter), every error except a non-network `TypeError`. Its timers run on virtual time.
 */
export const pRetryStrategy: Strategy = {
  name: 'p-retry',
  description: 'p-retry defaults (10 retries, 1 s × 2ⁿ, no jitter), new key per attempt',
  start: () => ({
    createJob: () => ({
      async call({ input, send }) {
        try {
          await pRetry(() => send(freshKey(operationOf(input))));
          return { ok: true };
        } catch (error) {
          return outcomeFromError(error);
        }
      },
    }),
  }),
};
