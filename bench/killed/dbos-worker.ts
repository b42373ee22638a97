// One worker process of the DBOS pass. Its first life starts the batch's jobs (each a
// workflow) and is killed while each stands at its kill point. The second life is either
// DBOS restarted with the same executor id (`DBOS.launch` recovers the pending workflows)
// or another worker, with its own executor id, taking the dead one's workflows over.
import { createOpenAI } from '@ai-sdk/openai';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { durableCalls } from '@dbos-inc/vercel-ai';
import { callContext, createRecovery } from '@recourse/dbos';
import { createScriptedProvider, serveProvider } from '@recourse/testing';
import { wrapLanguageModel } from 'ai';
import { jobPolicies, jobScript, jobTools, runAlone, runWithRecovery } from './job.js';
import {
  type DbosWorkerConfig,
  type JobSpec,
  type WorkerMessage,
  workerVariable,
} from './protocol.js';

const config = JSON.parse(process.env[workerVariable] ?? '{}') as DbosWorkerConfig;
// Resolves once the message is handed to the parent, so that a process exiting right
// after loses none.
const send = (message: WorkerMessage) =>
  new Promise<void>((resolve) => {
    if (!process.send) resolve();
    else process.send(message, undefined, {}, () => resolve());
  });
const never = new Promise<never>(() => {});

const provider = createScriptedProvider({ script: jobScript, onExhausted: 'repeat-last' });
const { baseURL } = await serveProvider(provider);
// Model calls are DBOS steps (DBOS's own AI SDK middleware): a resumed job gets the same answers.
const model = wrapLanguageModel({
  model: createOpenAI({ baseURL, apiKey: 'bench' }).chat('gpt-4o'),
  middleware: durableCalls({ retriesAllowed: false }),
});

async function agentJob(spec: JobSpec) {
  const raw = jobTools({
    spec,
    downstreamUrl: config.downstreamUrl,
    // The engine alone keys a write by its step, as DBOS's docs advise for idempotency keys.
    key: () =>
      spec.recourse ? callContext().idempotencyKey : `${DBOS.workflowID}:${String(DBOS.stepID)}`,
    beforeSend: async (tool) => {
      if (!config.first || spec.stopBeforeSending !== tool) return;
      await send({ type: 'blocking', jobId: spec.jobId });
      await never;
    },
  });
  // DBOS alone: every tool a DBOS step, with step retries on at DBOS's documented defaults
  // (maxAttempts 3, intervalSeconds 1, backoffRate 2).
  if (!spec.recourse)
    return runAlone(model, raw, (name, run) => DBOS.runStep(run, { name, retriesAllowed: true }));
  const recovery = createRecovery({
    systemDatabaseUrl: config.systemDatabaseUrl,
    policies: jobPolicies(config.downstreamUrl),
  });
  return runWithRecovery(model, raw, recovery);
}

const job = DBOS.registerWorkflow(agentJob, { name: 'killbenchJob' });

DBOS.setConfig({
  name: 'recourse-killbench',
  systemDatabaseUrl: config.systemDatabaseUrl,
  executorID: config.executorId,
  applicationVersion: 'recourse-killbench',
  logLevel: 'error',
});
await DBOS.launch();
await send({ type: 'ready' });
for (const spec of config.start) await DBOS.startWorkflow(job, { workflowID: spec.jobId })(spec);
if (config.first) await never;
for (const jobId of config.takeOver) await DBOS.resumeWorkflow(jobId);
await Promise.all(
  config.report.map(async (jobId) => {
    try {
      const result =
        await DBOS.retrieveWorkflow<Awaited<ReturnType<typeof agentJob>>>(jobId).getResult();
      await send({ type: 'result', jobId, result });
    } catch (error) {
      await send({ type: 'failed', jobId, error: String(error).slice(0, 500) });
    }
  }),
);
await DBOS.shutdown();
process.exit(0);
