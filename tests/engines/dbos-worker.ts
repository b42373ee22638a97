// One worker process of the DBOS tests. Launches DBOS on the test's system database with
// its own executor id, starts agent jobs (each a workflow), takes over jobs a dead
// executor left pending, and reports over IPC: `blocking` when a job stands at the point
// the test kills the process at, `finished` with every reported job's result.
import { createOpenAI } from '@ai-sdk/openai';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { durableCalls } from '@dbos-inc/vercel-ai';
import { callContext, createRecovery } from '@recourse/dbos';
import { PostgresLedger } from '@recourse/store-postgres';
import { createScriptedProvider, serveProvider } from '@recourse/testing';
import { generateText, isStepCount, type LanguageModelMiddleware, wrapLanguageModel } from 'ai';
import {
  jobScript,
  jobTools,
  openJobDownstreams,
  retryAfterOnce,
  writeTools,
} from './agent-job.js';
import {
  type DbosWorkerConfig,
  dbosWorkerVariable,
  type JobReport,
  type JobSpec,
  takeOverQueueOf,
  type WorkerCommand,
  type WorkerReport,
} from './dbos-protocol.js';

import { createWorkerClock, type WorkerClock } from './worker-clock.js';

const config = JSON.parse(process.env[dbosWorkerVariable] ?? '{}') as DbosWorkerConfig;
const send = (message: WorkerReport) => process.send?.(message);
const never = new Promise<never>(() => {});

interface RunningJob {
  spec: JobSpec;
  clock: WorkerClock;
}
const running = new Map<string, RunningJob>();

/** In a first worker, a job stops here for good when this is its kill point. */
const point = async (spec: JobSpec, name: string) => {
  if (!config.first || spec.killAt !== name) return;
  send({ type: 'blocking', workflowId: spec.workflowId, point: name, at: Date.now() });
  await never;
};

const provider = createScriptedProvider({ script: jobScript, onExhausted: 'repeat-last' });
const { baseURL } = await serveProvider(provider);
const openai = createOpenAI({ baseURL, apiKey: 'test' });

// "After a write": its result is back and the next model call has not started.
const afterWrite = {
  specificationVersion: 'v4',
  wrapGenerate: async ({ doGenerate, params }) => {
    const job = running.get(DBOS.workflowID ?? '');
    const last = params.prompt.at(-1);
    if (job && last?.role === 'tool') {
      for (const part of last.content) {
        if (
          part.type === 'tool-result' &&
          (writeTools as readonly string[]).includes(part.toolName)
        )
          await point(job.spec, `after:${part.toolName}`);
      }
    }
    return doGenerate();
  },
} as LanguageModelMiddleware;

// Model calls are DBOS steps (DBOS's own AI SDK middleware): a resumed job gets the same answers.
const model = wrapLanguageModel({
  model: wrapLanguageModel({
    model: openai.chat('gpt-4o'),
    middleware: durableCalls({ retriesAllowed: false }),
  }),
  middleware: afterWrite,
});

const policies = (downstreams: ReturnType<typeof openJobDownstreams>) => ({
  read_account: { sideEffects: false },
  reserve_stock: { sideEffects: true, idempotent: true },
  charge_card: {
    sideEffects: true,
    reconcile: (_input: unknown, { idempotencyKey }: { idempotencyKey: string }) => {
      const receipt = downstreams.payments.find(idempotencyKey);
      return receipt ? { happened: true as const, result: receipt } : { happened: false as const };
    },
  },
  send_letter: { sideEffects: true },
  read_status: { sideEffects: false },
});

async function agentJob(spec: JobSpec): Promise<unknown> {
  const clock = createWorkerClock(spec.wait, config.first, () => point(spec, 'wait:reserve_stock'));
  running.set(spec.workflowId, { spec, clock });
  send({ type: 'running', workflowId: spec.workflowId });
  const downstreams = openJobDownstreams(spec.downstreamDir);
  const raw = jobTools(downstreams, {
    worker: config.worker,
    point: (name) => point(spec, name),
    sent: (name) => {
      if (name === 'reserve_stock') clock.sentAt.push(clock.now());
    },
    key: () =>
      spec.recourse ? callContext().idempotencyKey : `${DBOS.workflowID}:${String(DBOS.stepID)}`,
    rateLimitOnce: retryAfterOnce(config.first ? spec.wait?.retryAfterSeconds : undefined),
  });
  const prompt = 'Fulfil order o-1 for acme';
  if (!spec.recourse) {
    // The engine alone: every tool a DBOS step, with the step retries DBOS documents.
    const tools = Object.fromEntries(
      Object.entries(raw).map(([name, t]) => [
        name,
        {
          ...t,
          execute: (input: never, options: never) =>
            DBOS.runStep(() => Promise.resolve(t.execute?.(input, options)), {
              name,
              retriesAllowed: true,
              maxAttempts: 3,
              intervalSeconds: 0.01,
            }),
        },
      ]),
    ) as unknown as typeof raw;
    const result = await generateText({
      model,
      prompt,
      tools: stopBeforeWrites(spec, tools),
      stopWhen: isStepCount(10),
      maxRetries: 0,
    });
    return { text: result.text, steps: result.steps.length };
  }
  const recovery = createRecovery({
    systemDatabaseUrl: config.systemDatabaseUrl,
    policies: policies(downstreams),
    ...(spec.wait
      ? {
          // The scenario's clock decides leases too, so the ledger keeps the same time.
          clock,
          retry: { maxDelayMs: 3_600_000, maxElapsedMs: 3_600_000 },
          ledger: new PostgresLedger({
            connectionString: config.systemDatabaseUrl,
            table: 'recourse_ledger',
            clock,
          }),
        }
      : {}),
  });
  await generateText({
    model,
    prompt,
    tools: stopBeforeWrites(spec, recovery.tools(raw)),
    stopWhen: [isStepCount(10), recovery.stopWhen],
    prepareStep: recovery.prepareStep,
    maxRetries: 0,
  });
  return JSON.parse(JSON.stringify(recovery.outcome()));
}

/** "Before a write": the model asked for it, nothing is claimed or sent yet. */
function stopBeforeWrites<T extends Record<string, unknown>>(spec: JobSpec, tools: T): T {
  const stopped: Record<string, unknown> = { ...tools };
  for (const name of writeTools) {
    const tool = tools[name] as { execute: (...args: unknown[]) => unknown };
    stopped[name] = {
      ...tool,
      execute: async (...args: unknown[]) => {
        await point(spec, `before:${name}`);
        return tool.execute(...args);
      },
    };
  }
  return stopped as T;
}

const job = DBOS.registerWorkflow(agentJob, { name: 'agentJob' });

DBOS.setConfig({
  name: 'recourse-dbos-test',
  systemDatabaseUrl: config.systemDatabaseUrl,
  executorID: config.executorId,
  applicationVersion: 'recourse-engine-tests',
  logLevel: 'error',
  ...(config.listenQueues ? { listenQueues: config.listenQueues } : {}),
});
if (config.launchWhenTold) {
  await new Promise<void>((resolve) => {
    process.on('message', (command: WorkerCommand) => {
      if (command.type === 'launch') resolve();
    });
  });
}
await DBOS.launch();
send({ type: 'ready' });

for (const spec of config.start) {
  await DBOS.startWorkflow(job, { workflowID: spec.workflowId })(spec);
}
// A first worker is killed while its jobs stand at their kill points.
if (config.first) await never;
if (config.takeOver.length > 0) {
  const queueName = takeOverQueueOf(config.executorId);
  await DBOS.registerQueue(queueName, { minPollingIntervalMs: 100 });
  await DBOS.resumeWorkflows(config.takeOver, { queueName });
}
const jobs: Record<string, JobReport> = {};
await Promise.all(
  config.report.map(async (workflowId) => {
    const result = await DBOS.retrieveWorkflow(workflowId).getResult();
    const clock = running.get(workflowId)?.clock;
    jobs[workflowId] = {
      result,
      sleeps: clock?.sleeps ?? [],
      sentAt: clock?.sentAt ?? [],
      ranHere: clock !== undefined,
    };
  }),
);
send({ type: 'finished', jobs });
await DBOS.shutdown();
process.exit(0);
