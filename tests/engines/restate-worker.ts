// One service process of the Restate tests: serves the agent job as a Restate workflow on
// a port the test registered with the server. Reports over IPC: `ready` once listening,
// `blocking` when a job stands at the point the test kills the process (or the server) at.
import { createOpenAI } from '@ai-sdk/openai';
import { SqliteLedger } from '@recourse/core/sqlite';
import { callContext, createRecovery, type Ledger } from '@recourse/restate';
import { createScriptedProvider, serveProvider } from '@recourse/testing';
import * as restate from '@restatedev/restate-sdk';
import { durableCalls } from '@restatedev/vercel-ai-middleware';
import {
  generateText,
  isStepCount,
  type LanguageModelMiddleware,
  type ToolSet,
  wrapLanguageModel,
} from 'ai';
import {
  jobScript,
  jobTools,
  openJobDownstreams,
  retryAfterOnce,
  writeTools,
} from './agent-job.js';
import type { JobSpec } from './dbos-protocol.js';
import {
  type RestateJobReport,
  type RestateWorkerCommand,
  type RestateWorkerConfig,
  restateWorkerVariable,
} from './restate-protocol.js';
import { createWorkerClock } from './worker-clock.js';

const config = JSON.parse(process.env[restateWorkerVariable] ?? '{}') as RestateWorkerConfig;
const never = new Promise<never>(() => {});
// A job stops at its kill point once per process: when the server (not this process) is
// killed there, its retry of the invocation comes back here and must go on.
const stopped = new Set<string>();
// A job held at `claimed:<tool>` goes on when the test says `release` (true: it was held).
const gates = new Map<string, () => void>();
process.on('message', (command: RestateWorkerCommand) => {
  if (command.type === 'release') gates.get(command.workflowId)?.();
});
const stopAt = async (spec: JobSpec, name: string): Promise<boolean> => {
  if (!config.first || spec.killAt !== name || stopped.has(spec.workflowId)) return false;
  stopped.add(spec.workflowId);
  process.send?.({ type: 'blocking', workflowId: spec.workflowId, point: name, at: Date.now() });
  if (!name.startsWith('claimed:')) await never;
  await new Promise<void>((resolve) => gates.set(spec.workflowId, resolve));
  return true;
};
const point = async (spec: JobSpec, name: string): Promise<void> => {
  await stopAt(spec, name);
};

// "After a write": its result is back and the next model call has not started.
const afterWrite = (spec: JobSpec): LanguageModelMiddleware => ({
  specificationVersion: 'v4',
  wrapGenerate: async ({ doGenerate, params }) => {
    const last = params.prompt.at(-1);
    if (last?.role === 'tool') {
      for (const part of last.content) {
        if (
          part.type === 'tool-result' &&
          (writeTools as readonly string[]).includes(part.toolName)
        )
          await point(spec, `after:${part.toolName}`);
      }
    }
    return doGenerate();
  },
});

const provider = createScriptedProvider({ script: jobScript, onExhausted: 'repeat-last' });
const { baseURL } = await serveProvider(provider);
const openai = createOpenAI({ baseURL, apiKey: 'test' });
const ledger = new SqliteLedger({ path: config.ledgerPath });

const agentJob = restate.workflow({
  name: 'agentJob',
  handlers: {
    run: async (ctx: restate.WorkflowContext, spec: JobSpec): Promise<RestateJobReport> => {
      // Model calls journaled by Restate's own AI SDK middleware: a retry gets the same answers.
      const model = wrapLanguageModel({
        model: wrapLanguageModel({
          model: openai.chat('gpt-4o'),
          middleware: durableCalls(ctx, { maxRetryAttempts: 1 }),
        }),
        middleware: afterWrite(spec),
      });
      const clock = createWorkerClock(spec.wait, config.first, () =>
        point(spec, 'wait:reserve_stock'),
      );
      const report = (result: unknown): RestateJobReport => ({
        result,
        sleeps: clock.sleeps,
        sentAt: clock.sentAt,
        worker: config.worker,
      });
      const downstreams = openJobDownstreams(spec.downstreamDir);
      const raw = jobTools(downstreams, {
        worker: config.worker,
        point: (name) => point(spec, name),
        sent: (name) => {
          if (name === 'reserve_stock') clock.sentAt.push(clock.now());
        },
        key: () => (spec.recourse ? callContext().idempotencyKey : `${ctx.key}:${name()}`),
        rateLimitOnce: retryAfterOnce(config.first ? spec.wait?.retryAfterSeconds : undefined),
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
        return report({ text: result.text, steps: result.steps.length });
      }
      // `claimed:<tool>`: recourse holds the write's claim and has not called the tool yet.
      const held = { calling: '', here: false };
      const claimGate = spec.killAt?.startsWith('claimed:')
        ? async () => {
            held.here ||= await stopAt(spec, `claimed:${held.calling}`);
          }
        : undefined;
      const recovery = createRecovery(ctx, {
        // The wait scenario's clock decides leases too, so the ledger keeps the same time.
        ...(spec.wait
          ? {
              clock,
              retry: { maxDelayMs: 3_600_000, maxElapsedMs: 3_600_000 },
              ledger: new SqliteLedger({ path: config.ledgerPath, clock }),
            }
          : claimGate
            ? // The gate holds the claim's answer for as long as the test needs.
              { ledger: gateClaims(ledger, claimGate), ledgerTimeoutMs: 120_000 }
            : { ledger }),
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
      });
      await generateText({
        model,
        prompt,
        tools: stopBeforeWrites(spec, reportHeldCalls(spec, held, recovery.tools(raw))),
        stopWhen: [isStepCount(10), recovery.stopWhen],
        prepareStep: recovery.prepareStep,
        maxRetries: 0,
      });
      return report(JSON.parse(JSON.stringify(recovery.outcome())));
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

/** The ledger, its granted claims answered only once `gate` resolves. */
function gateClaims(inner: Ledger, gate: () => Promise<void>): Ledger {
  return new Proxy(inner, {
    get(target, property) {
      if (property === 'claim')
        return async (...args: Parameters<Ledger['claim']>) => {
          const claimed = await target.claim(...args);
          if (claimed.status === 'acquired') await gate();
          return claimed;
        };
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * Names the write whose claim is asked for, and tells the test when a call the gate held
 * has ended (by then a new attempt of the invocation has answered it).
 */
function reportHeldCalls<T extends ToolSet>(
  spec: JobSpec,
  held: { calling: string; here: boolean },
  tools: T,
): T {
  const reporting: Record<string, unknown> = { ...tools };
  for (const toolName of writeTools) {
    const tool = tools[toolName] as unknown as { execute: (...args: unknown[]) => unknown };
    reporting[toolName] = {
      ...tool,
      execute: async (...args: unknown[]) => {
        held.calling = toolName;
        try {
          return await tool.execute(...args);
        } finally {
          if (held.here) {
            held.here = false;
            process.send?.({ type: 'held-call-ended', workflowId: spec.workflowId });
          }
        }
      },
    };
  }
  return reporting as T;
}

if (config.listenWhenTold) {
  await new Promise<void>((resolve) => {
    process.on('message', (command: RestateWorkerCommand) => {
      if (command.type === 'listen') resolve();
    });
  });
}
await restate.serve({ services: [agentJob], port: config.port });
process.send?.({ type: 'ready' });
