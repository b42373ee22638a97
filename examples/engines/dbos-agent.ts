// An AI SDK agent as a DBOS workflow, with recourse. Run it twice:
//
//   pnpm --filter @recourse/examples exec tsx --conditions=recourse-source engines/dbos-agent.ts crash
//   pnpm --filter @recourse/examples exec tsx --conditions=recourse-source engines/dbos-agent.ts
//
// The first run kills itself (SIGKILL) while the payment provider applies the charge. The
// second run's DBOS.launch() recovers the workflow: the model calls come back from DBOS's
// checkpoints, the charge's claim left by the dead process is taken over at once, the
// reconcile finds the charge by its key, and the run completes: one charge.
// Needs PostgreSQL (DBOS_SYSTEM_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/recourse_dbos_example).
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAI } from '@ai-sdk/openai';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { durableCalls } from '@dbos-inc/vercel-ai';
import { callContext, createRecovery } from '@recourse/dbos';
import { createScriptedProvider, serveProvider, text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, tool, wrapLanguageModel } from 'ai';
import { z } from 'zod';

const systemDatabaseUrl =
  process.env.DBOS_SYSTEM_DATABASE_URL ??
  'postgres://postgres@127.0.0.1:5432/recourse_dbos_example';
const crash = process.argv.includes('crash');

// The payment provider: a file of applied charges, one line per charge, that survives a crash.
const charges = join(tmpdir(), 'recourse-dbos-example-charges.log');
const applied = (): { key: string }[] =>
  existsSync(charges)
    ? readFileSync(charges, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
    : [];

// The model (scripted here; any AI SDK model works): charge, then answer.
const provider = createScriptedProvider({
  script: [
    (request) =>
      request.toolResults.length === 0
        ? toolCall('charge_card', { account: 'acme', amount: 120 }, { id: 'call_charge' })
        : text('Charged acme 120.'),
  ],
  onExhausted: 'repeat-last',
});
const { baseURL } = await serveProvider(provider);

// Model calls are DBOS steps (DBOS's AI SDK middleware): a resumed run gets the same answers.
const model = wrapLanguageModel({
  model: createOpenAI({ baseURL, apiKey: 'test' }).chat('gpt-4o'),
  middleware: durableCalls(),
});

const checkout = DBOS.registerWorkflow(
  async (account: string) => {
    // The changed lines: recourse's tools, stopWhen and prepareStep, inside the workflow.
    const recovery = createRecovery({
      systemDatabaseUrl,
      policies: {
        charge_card: {
          sideEffects: true,
          reconcile: (_input, { idempotencyKey }) =>
            applied().some((charge) => charge.key === idempotencyKey)
              ? { happened: true, result: 'charged' }
              : { happened: false },
        },
      },
    });
    const result = await generateText({
      model,
      prompt: `Charge ${account} 120`,
      tools: recovery.tools({
        charge_card: tool({
          inputSchema: z.object({ account: z.string(), amount: z.number() }),
          execute: async () => {
            appendFileSync(charges, `${JSON.stringify({ key: callContext().idempotencyKey })}\n`);
            if (crash) process.kill(process.pid, 'SIGKILL'); // the response is lost with the process
            return 'charged';
          },
        }),
      }),
      stopWhen: [isStepCount(5), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });
    return { text: result.text, outcome: recovery.outcome() };
  },
  { name: 'checkout' },
);

DBOS.setConfig({ name: 'recourse-dbos-example', systemDatabaseUrl, logLevel: 'error' });
await DBOS.launch(); // recovers the workflow a crashed run left pending
const workflowID = 'checkout-acme-1';
const status = await DBOS.getWorkflowStatus(workflowID);
const handle =
  status === null
    ? await DBOS.startWorkflow(checkout, { workflowID })('acme')
    : DBOS.retrieveWorkflow<ReturnType<typeof checkout>>(workflowID);
const { text: answer, outcome } = await handle.getResult();
console.log(answer);
console.log(outcome.status, outcome.completed_steps, outcome.recoveries);
console.log(`charges applied: ${applied().length}`);
await DBOS.shutdown();
