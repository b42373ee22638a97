import { createRecovery } from '@recourse/ai-sdk';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, tool } from 'ai';
import { z } from 'zod';
import { httpError } from '../shared/downstream.js';
import { createExampleModel } from '../shared/model.js';
import { createTrace, type Log, type Observer } from '../shared/trace.js';

/**
 * A validation failure: the invoice service rejects a due date it cannot parse. recourse
 * tells the model to repair the arguments, twice; the same failure a third time is a
 * poison step, and the loop stops instead of thrashing.
 */
export async function runExtractExample(log: Log = console.log, observe?: Observer) {
  const bad = { invoice: 'INV-7', dueDate: 'next Friday-ish' };
  const { model, close, provider } = createExampleModel([
    toolCall('save_invoice', bad),
    toolCall('save_invoice', bad),
    toolCall('save_invoice', bad),
    toolCall('save_invoice', bad), // never requested: the run stopped
    text('unreachable'),
  ]);
  const trace = createTrace(log, observe);
  const recovery = createRecovery({
    runId: 'run-extract-3',
    onEvent: trace.onEvent,
    repairBudget: 2,
    policies: { save_invoice: { sideEffects: true } },
  });
  let calls = 0;
  try {
    await generateText({
      model,
      prompt: 'Save invoice INV-7, due next Friday.',
      tools: recovery.tools({
        save_invoice: tool({
          description: 'Save an invoice with an ISO due date',
          inputSchema: z.object({ invoice: z.string(), dueDate: z.string() }),
          execute: async ({ dueDate }) => {
            calls++;
            if (!/^\d{4}-\d{2}-\d{2}$/.test(dueDate))
              throw httpError(422, 'field "dueDate" must be an ISO date (YYYY-MM-DD)');
            return 'saved';
          },
        }),
      }),
      stopWhen: [isStepCount(8), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });
    const outcome = recovery.outcome();
    trace.printOutcome(outcome);
    log(`tool executions: ${calls}; model requests: ${provider?.requests.length ?? 'n/a'}`);
    return { outcome, calls, modelRequests: provider?.requests.length };
  } finally {
    close();
  }
}
