// One service process of the Restate tests: serves the agent job as a Restate workflow on
// a port the test registered with the server. Reports over IPC: `ready` once listening,
// `blocking` when a job stands at the point the test kills the process at.
import { createOpenAI } from '@ai-sdk/openai';
import { SqliteLedger } from '@recourse/core/sqlite';
import { callContext, createRecovery } from '@recourse/restate';
import { createScriptedProvider, serveProvider } from '@recourse/testing';
import * as restate from '@restatedev/restate-sdk';
import { durableCalls } from '@restatedev/vercel-ai-middleware';
import { generateText, isStepCount, type ToolSet, wrapLanguageModel } from 'ai';
import { jobScript, jobTools, openJobDownstreams, writeTools } from './agent-job.js';
import type { JobSpec } from './dbos-protocol.js';
import { type RestateWorkerConfig, restateWorkerVariable } from './restate-protocol.js';

const config = JSON.parse(process.env[restateWorkerVariable] ?? '{}') as RestateWorkerConfig;
const never = new Promise<never>(() => {});
const point = async (spec: JobSpec, name: string) => {
  if (!config.first || spec.killAt !== name) return;
  process.send?.({ type: 'blocking', workflowId: spec.workflowId, point: name, at: Date.now() });
  await never;
};

const provider = createScriptedProvider({ script: jobScript, onExhausted: 'repeat-last' });
const { baseURL } = await serveProvider(provider);
const openai = createOpenAI({ baseURL, apiKey: 'test' });
const ledger = new SqliteLedger({ path: config.ledgerPath });

const agentJob = restate.workflow({
  name: 'agentJob',
  handlers: {
    run: async (ctx: restate.WorkflowContext, spec: JobSpec) => {
      // Model calls journaled by Restate's own AI SDK middleware: a retry gets the same answers.
      const model = wrapLanguageModel({
        model: openai.chat('gpt-4o'),
        middleware: durableCalls(ctx, { maxRetryAttempts: 1 }),
      });
      const downstreams = openJobDownstreams(spec.downstreamDir);
      let rateLimited = false;
      const raw = jobTools(downstreams, {
        worker: config.worker,
        point: (name) => point(spec, name),
        key: () => (spec.recourse ? callContext().idempotencyKey : `${ctx.key}:${name()}`),
        rateLimitOnce: () => {
          if (!spec.wait || rateLimited || !config.first) return undefined;
          rateLimited = true;
          return Object.assign(new Error('429 Too Many Requests'), {
            status: 429,
            headers: new Headers({ 'retry-after': String(spec.wait.retryAfterSeconds) }),
          });
        },
      });
      let current = '';
      const name = () => current;
      const prompt = 'Fulfil order o-1 for acme';
      if (!spec.recourse) {
        // Restate alone: every tool a ctx.run, retried as Restate documents.
        const tools = Object.fromEntries(
          Object.entries(raw).map(([toolName, t]) => [
            toolName,
            {
              ...t,
              execute: (input: never, options: never) =>
                ctx.run(toolName, async () => {
                  current = toolName;
                  return (await t.execute?.(input, options)) as never;
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
      const recovery = createRecovery(ctx, {
        ledger,
        policies: {
          read_account: { sideEffects: false },
          reserve_stock: { sideEffects: true, idempotent: true },
          charge_card: {
            sideEffects: true,
            reconcile: (_input, { idempotencyKey }) => {
              const receipt = downstreams.payments.find(idempotencyKey);
              return receipt ? { happened: true, result: receipt } : { happened: false };
            },
          },
          send_letter: { sideEffects: true },
          read_status: { sideEffects: false },
        },
        onEvent: (event) => {
          if (event.type === 'retry.scheduled' && event.delayMs >= 1_000)
            void point(spec, 'wait:reserve_stock');
        },
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
    },
  },
});

/** "Before a write": the model asked for it, nothing is claimed or sent yet. */
function stopBeforeWrites<T extends ToolSet>(spec: JobSpec, tools: T): T {
  const stopped: Record<string, unknown> = { ...tools };
  for (const toolName of writeTools) {
    const tool = tools[toolName] as unknown as { execute: (...args: unknown[]) => unknown };
    stopped[toolName] = {
      ...tool,
      execute: async (...args: unknown[]) => {
        await point(spec, `before:${toolName}`);
        return tool.execute(...args);
      },
    };
  }
  return stopped as T;
}

await restate.serve({ services: [agentJob], port: config.port });
process.send?.({ type: 'ready' });
