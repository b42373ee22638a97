// One service process of the Restate pass: serves the job as a Restate workflow on the port
// the server knows. Its first life is killed while each job stands at its kill point; the
// server retries every invocation against the second life on the same port.
import { createOpenAI } from '@ai-sdk/openai';
import { SqliteLedger } from '@recourse/core/sqlite';
import { callContext, createRecovery } from '@recourse/restate';
import { createScriptedProvider, serveProvider } from '@recourse/testing';
import * as restate from '@restatedev/restate-sdk';
import { durableCalls } from '@restatedev/vercel-ai-middleware';
import { generateText, isStepCount, wrapLanguageModel } from 'ai';
import {
  jobPolicies,
  jobPrompt,
  jobScript,
  jobTools,
  resultOfOutcome,
  resultOfSteps,
} from './job.js';
import {
  type JobResult,
  type JobSpec,
  type RestateWorkerConfig,
  type WorkerMessage,
  workerVariable,
} from './protocol.js';

const config = JSON.parse(process.env[workerVariable] ?? '{}') as RestateWorkerConfig;
const send = (message: WorkerMessage) => process.send?.(message);
const never = new Promise<never>(() => {});

const provider = createScriptedProvider({ script: jobScript, onExhausted: 'repeat-last' });
const { baseURL } = await serveProvider(provider);
const openai = createOpenAI({ baseURL, apiKey: 'bench' });
const ledger = new SqliteLedger({ path: config.ledgerPath });

const killbenchJob = restate.workflow({
  name: 'killbenchJob',
  handlers: {
    run: async (ctx: restate.WorkflowContext, spec: JobSpec): Promise<JobResult> => {
      // Model calls journaled by Restate's own AI SDK middleware: a retry gets the same answers.
      const model = wrapLanguageModel({
        model: openai.chat('gpt-4o'),
        middleware: durableCalls(ctx, { maxRetryAttempts: 1 }),
      });
      const raw = jobTools({
        spec,
        downstreamUrl: config.downstreamUrl,
        // The engine alone keys a write by the workflow and the tool (each runs once a job).
        key: (tool) => (spec.recourse ? callContext().idempotencyKey : `${ctx.key}:${tool}`),
        beforeSend: async (tool) => {
          if (!config.first || spec.stopBeforeSending !== tool) return;
          send({ type: 'blocking', jobId: spec.jobId });
          await never;
        },
      });
      if (!spec.recourse) {
        // Restate alone: every tool a ctx.run with no options, so Restate's default retry
        // policy applies.
        const tools = Object.fromEntries(
          Object.entries(raw).map(([name, t]) => [
            name,
            {
              ...t,
              execute: (input: never, options: never) =>
                ctx.run(name, async () => (await t.execute?.(input, options)) as never),
            },
          ]),
        ) as unknown as typeof raw;
        const result = await generateText({
          model,
          prompt: jobPrompt,
          tools,
          stopWhen: isStepCount(10),
          maxRetries: 0,
        });
        return resultOfSteps(result);
      }
      const recovery = createRecovery(ctx, { ledger, policies: jobPolicies(config.downstreamUrl) });
      await generateText({
        model,
        prompt: jobPrompt,
        tools: recovery.tools(raw),
        stopWhen: [isStepCount(10), recovery.stopWhen],
        prepareStep: recovery.prepareStep,
        maxRetries: 0,
      });
      return resultOfOutcome(JSON.parse(JSON.stringify(recovery.outcome())));
    },
  },
});

await restate.serve({ services: [killbenchJob], port: config.port });
send({ type: 'ready' });
