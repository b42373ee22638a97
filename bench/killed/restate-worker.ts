// One service process of the Restate pass: serves the job as a Restate workflow on the port
// the server knows. Its first life is killed while each job stands at its kill point; the
// server retries every invocation against the second life on the same port.
import { createOpenAI } from '@ai-sdk/openai';
import { SqliteLedger } from '@recourse/core/sqlite';
import { callContext, createRecovery } from '@recourse/restate';
import { createScriptedProvider, serveProvider } from '@recourse/testing';
import * as restate from '@restatedev/restate-sdk';
import { durableCalls } from '@restatedev/vercel-ai-middleware';
import { wrapLanguageModel } from 'ai';
import { jobPolicies, jobScript, jobTools, runAlone, runWithRecovery } from './job.js';
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
      // Restate alone: every tool a ctx.run with no options, so Restate's default retry
      // policy applies.
      if (!spec.recourse)
        return runAlone(model, raw, (name, run) =>
          ctx.run(name, async () => (await run()) as never),
        );
      const recovery = createRecovery(ctx, { ledger, policies: jobPolicies(config.downstreamUrl) });
      return runWithRecovery(model, raw, recovery);
    },
  },
});

await restate.serve({ services: [killbenchJob], port: config.port });
send({ type: 'ready' });
