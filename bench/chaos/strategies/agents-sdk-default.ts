import { operationOf } from '../job-steps.js';
import { freshKey, outcomeFromText } from './baseline-outcome.js';
import type { Strategy } from './strategy.js';

// The OpenAI Agents SDK's default tool error handling (@openai/agents 0.20.0, openai/openai-agents-js
// packages/agents-core/src/tool.ts `defaultToolErrorFunction`, used by `tool()` when no
// `errorFunction` is given): a throwing `execute` is caught and the model gets this fixed
// sentence. No tool retry exists (`modelRetry` in runner/ covers model requests only), and
// no `timeoutMs` is set by default.
const defaultErrorText = 'An error occurred while running the tool. Please try again.';

/**
 * One attempt per tool call; the model reads the fixed sentence, which names no status, so
 * the agent cannot tell a 422, a 412 or a 403 from a 503: it calls again (a new tool call,
 * a new key), as the sentence asks.
 */
export const agentsSdkDefaultStrategy: Strategy = {
  name: 'agents-sdk default',
  kind: 'baseline',
  description:
    'OpenAI Agents SDK tool() defaults: one attempt, the model told "An error occurred while running the tool. Please try again."',
  start: () => ({
    createJob: () => ({
      async call({ input, send }) {
        try {
          await send(freshKey(operationOf(input)));
          return { ok: true };
        } catch {
          return { ...outcomeFromText(defaultErrorText), reason: 'the fixed sentence (no status)' };
        }
      },
    }),
  }),
};
