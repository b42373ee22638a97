import { operationOf } from '../job-steps.js';
import { freshKey, outcomeFromError } from './baseline-outcome.js';
import type { Strategy } from './strategy.js';

/**
 * The AI SDK with no retry layer. `ai` never retries a tool (vercel/ai
 * `packages/ai/src/generate-text/execute-tool-call.ts` turns a throw into a `tool-error`
 * part; `maxRetries`, default 2, wraps only the model request in `generate-text.ts`): one
 * attempt per tool call, and the model reads the error text and decides. Re-issuing the
 * call is the simulated agent's move, a new tool call with a new id, so a new key.
 */
export const aiSdkAloneStrategy: Strategy = {
  name: 'ai-sdk alone',
  kind: 'baseline',
  description: 'AI SDK without a retry layer: one attempt per tool call, the model re-issues',
  start: () => ({
    createJob: () => ({
      async call({ input, send }) {
        try {
          await send(freshKey(operationOf(input)));
          return { ok: true };
        } catch (error) {
          return outcomeFromError(error);
        }
      },
    }),
  }),
};
