import { operationOf } from '../job-steps.js';
import { freshKey, outcomeFromText } from './baseline-outcome.js';
import type { Strategy } from './strategy.js';

// LangChain v1 `toolRetryMiddleware()` with no options (langchain-ai/langchainjs,
// libs/langchain/src/agents/middleware/toolRetry.ts, defaults in ./constants.ts
// `RetrySchema`, delay in ./utils.ts `calculateRetryDelay`): 2 retries, every error,
// 1 s × 2ⁿ capped at 60 s, ±25 % jitter from `Math.random`, `onFailure: "continue"`.
// Checked again against langchain 1.5.14: `retryOn` defaults to `getRetryable(error) ?? true`
// (only errors LangChain itself stamps non-retryable, its own model errors, are skipped) and
// an error's own `retryAfterMs` property is a floor on the delay; a tool's HTTP error carries
// neither, so for the chaos downstream's errors this is still "every error, 1 s × 2ⁿ".
const maxRetries = 2;
const initialDelayMs = 1_000;
const backoffFactor = 2;
const maxDelayMs = 60_000;

function retryDelay(retryNumber: number): number {
  const delay = Math.min(initialDelayMs * backoffFactor ** retryNumber, maxDelayMs);
  return Math.max(0, delay + (Math.random() * 2 - 1) * delay * 0.25);
}

/**
 * The middleware's behaviour, reimplemented (the package would pull in LangGraph): retry
 * the tool call in place, then hand the model a ToolMessage with status "error" whose text
 * is `Tool '<name>' failed after <n> attempts with <error class name>` — the status code
 * and message of the error are not in it. Its sleep takes no signal, so the deadline is
 * seen only when the call returns.
 */
export const langchainToolRetryStrategy: Strategy = {
  name: 'langchain toolRetry',
  kind: 'baseline',
  description:
    'LangChain v1 toolRetryMiddleware defaults (2 retries, 1 s × 2ⁿ ±25 %, onFailure "continue"), new key per attempt',
  start: ({ time }) => ({
    createJob: () => ({
      async call({ step, input, send }) {
        for (let attempt = 0; attempt <= maxRetries; attempt++) {
          try {
            await send(freshKey(operationOf(input)));
            return { ok: true };
          } catch (error) {
            if (attempt < maxRetries) {
              await time.sleep(retryDelay(attempt));
              continue;
            }
            const errorType = (error as object).constructor.name;
            const attempts = attempt + 1;
            const text = `Tool '${step.name}' failed after ${attempts} ${attempts === 1 ? 'attempt' : 'attempts'} with ${errorType}`;
            return {
              ...outcomeFromText(text),
              reason: `failed with ${errorType} (no status shown)`,
            };
          }
        }
        throw new Error('unreachable: the retry loop returns');
      },
    }),
  }),
};
