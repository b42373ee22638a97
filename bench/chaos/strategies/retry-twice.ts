import { operationOf } from '../job-steps.js';
import { freshKey, outcomeFromError } from './baseline-outcome.js';
import type { Strategy } from './strategy.js';

const retries = 2;
const initialDelayMs = 500;

/**
 * "Retry everything twice": the common framework default for tool retries (3 attempts,
 * every error, exponential 500 ms → 1 s, as in LangGraph's `RetryPolicy` defaults
 * minus the error filter), a new key per attempt.
 */
export const retryTwiceStrategy: Strategy = {
  name: 'retry-twice',
  kind: 'baseline',
  description: 'retry every error twice (3 attempts), 500 ms then 1 s, new key per attempt',
  start: ({ time }) => ({
    createJob: () => ({
      async call({ input, send, signal }) {
        let lastError: unknown;
        for (let attempt = 0; attempt <= retries; attempt++) {
          if (attempt > 0) await time.sleep(initialDelayMs * 2 ** (attempt - 1), signal);
          try {
            await send(freshKey(operationOf(input)));
            return { ok: true };
          } catch (error) {
            lastError = error;
          }
        }
        return outcomeFromError(lastError);
      },
    }),
  }),
};
