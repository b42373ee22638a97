import { createRecovery } from '@recourse/ai-sdk';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, tool } from 'ai';
import { z } from 'zod';
import { httpError } from '../shared/downstream.js';
import { createExampleModel } from '../shared/model.js';
import { createTrace, type Log, type Observer } from '../shared/trace.js';

/**
 * A 412 "branch is behind": stale state. The same merge is not retried; the model is
 * told to re-observe, reads the pull request again, and merges at the new head.
 */
export async function runMergeExample(log: Log = console.log, observe?: Observer) {
  const pr = { number: 7, head: 'a1b2c3', behind: true };
  const merges: string[] = [];
  const { model, close } = createExampleModel([
    toolCall('merge_pull_request', { number: 7, expectedHead: 'a1b2c3' }),
    toolCall('get_pull_request', { number: 7 }),
    toolCall('merge_pull_request', { number: 7, expectedHead: 'd4e5f6' }),
    text('Merged pull request 7 at d4e5f6.'),
  ]);
  const trace = createTrace(log, observe);
  const recovery = createRecovery({
    runId: 'run-merge-12',
    onEvent: trace.onEvent,
    policies: {
      merge_pull_request: { sideEffects: true },
      get_pull_request: { sideEffects: false },
    },
  });
  try {
    await generateText({
      model,
      prompt: 'Merge pull request 7.',
      tools: recovery.tools({
        merge_pull_request: tool({
          description: 'Merge a pull request if its head is the expected commit',
          inputSchema: z.object({ number: z.number(), expectedHead: z.string() }),
          execute: async ({ expectedHead }) => {
            merges.push(expectedHead);
            if (pr.behind) {
              pr.behind = false; // someone updated the branch meanwhile
              pr.head = 'd4e5f6';
              throw httpError(412, 'Precondition Failed: branch is behind the base branch');
            }
            if (expectedHead !== pr.head) throw httpError(409, 'head changed');
            return { merged: true, sha: pr.head };
          },
        }),
        get_pull_request: tool({
          description: 'Read the current state of a pull request',
          inputSchema: z.object({ number: z.number() }),
          execute: async () => ({
            number: pr.number,
            head: pr.head,
            behind: pr.behind,
            mergeable: true,
          }),
        }),
      }),
      stopWhen: [isStepCount(8), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });
    const outcome = recovery.outcome();
    trace.printOutcome(outcome);
    log(`merge requests sent: ${merges.join(', ')}`);
    return { outcome, merges };
  } finally {
    close();
  }
}
