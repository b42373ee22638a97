import { operationOf } from '../job-steps.js';
import { freshKey, outcomeFromError } from './baseline-outcome.js';
import type { Strategy } from './strategy.js';

const retries = 3;

/** The seed's baseline: `catch → retry` up to 3 times, no delay, a new key per attempt. */
export const naiveStrategy: Strategy = {
  name: 'naive',
  kind: 'baseline',
  description: 'catch → retry up to 3 times (4 attempts), no delay, new key per attempt',
  start: () => ({
    createJob: () => ({
      async call({ input, send, signal }) {
        let lastError: unknown;
        for (let attempt = 0; attempt <= retries && !signal.aborted; attempt++) {
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
