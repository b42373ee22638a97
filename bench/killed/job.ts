import type { AiSdkRecovery } from '@recourse/ai-sdk';
import { type ScriptEntry, text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, type LanguageModel, tool } from 'ai';
import { z } from 'zod';
import type { JobResult, JobSpec, WriteTool } from './protocol.js';

/**
 * The job: a read, an idempotent write (the stock service dedupes on the key), a
 * reconcilable write (payments can be asked by key), a write with neither (a letter), a
 * last read, then an answer.
 */
const jobSteps = [
  { tool: 'read_account', input: { account: 'acme' } },
  { tool: 'reserve_stock', input: { sku: 'sku-7', units: 3 } },
  { tool: 'charge_card', input: { account: 'acme', amount: 120 } },
  { tool: 'send_letter', input: { to: 'acme', text: 'Your order is on its way' } },
  { tool: 'read_status', input: { order: 'o-1' } },
] as const;

/**
 * The model: each answer depends only on how many tool results came back, so a model call
 * the engine replays, or a resumed process asks again, gets the same answer.
 */
export const jobScript: readonly ScriptEntry[] = [
  (request) => {
    const done = request.toolResults.length;
    const step = jobSteps[done];
    return step ? toolCall(step.tool, step.input, { id: `call_step_${done + 1}` }) : text('done');
  },
];

export const jobPrompt = 'Fulfil order o-1 for acme';

export interface JobToolHooks {
  spec: JobSpec;
  downstreamUrl: string;
  /** The key the write sends downstream. */
  key(tool: WriteTool): string;
  /** Called just before a write is sent; may never return (the process is killed there). */
  beforeSend(tool: WriteTool): Promise<void>;
}

/** Asks the downstream whether the write under `key` was applied: `charge_card`'s reconcile. */
export async function findWrite(downstreamUrl: string, tool: WriteTool, key: string) {
  const query = new URLSearchParams({ tool, key });
  const response = await fetch(`${downstreamUrl}/find?${query}`);
  if (!response.ok) throw new Error(`downstream find answered ${response.status}`);
  return (await response.json()) as { found: boolean; receipt?: string };
}

export function jobTools(hooks: JobToolHooks) {
  const write = async (name: WriteTool) => {
    const key = hooks.key(name);
    await hooks.beforeSend(name);
    const response = await fetch(`${hooks.downstreamUrl}/write`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jobId: hooks.spec.jobId, tool: name, key }),
    });
    if (!response.ok) throw new Error(`downstream answered ${response.status}`);
    return (await response.json()) as { receipt: string };
  };
  return {
    read_account: tool({
      inputSchema: z.object({ account: z.string() }),
      execute: async ({ account }) => ({ account, balance: 500 }),
    }),
    reserve_stock: tool({
      inputSchema: z.object({ sku: z.string(), units: z.number() }),
      execute: () => write('reserve_stock'),
    }),
    charge_card: tool({
      inputSchema: z.object({ account: z.string(), amount: z.number() }),
      execute: () => write('charge_card'),
    }),
    send_letter: tool({
      inputSchema: z.object({ to: z.string(), text: z.string() }),
      execute: () => write('send_letter'),
    }),
    read_status: tool({
      inputSchema: z.object({ order: z.string() }),
      execute: async ({ order }) => ({ order, status: 'packed' }),
    }),
  };
}

/** recourse's policies for the job's tools: what a user of recourse declares. */
export function jobPolicies(downstreamUrl: string) {
  return {
    read_account: { sideEffects: false },
    reserve_stock: { sideEffects: true, idempotent: true },
    charge_card: {
      sideEffects: true,
      reconcile: async (_input: unknown, { idempotencyKey }: { idempotencyKey: string }) => {
        const found = await findWrite(downstreamUrl, 'charge_card', idempotencyKey);
        return found.found
          ? { happened: true as const, result: { receipt: found.receipt } }
          : { happened: false as const };
      },
    },
    send_letter: { sideEffects: true },
    read_status: { sideEffects: false },
  };
}

interface OutcomeLike {
  status: string;
  completed_steps: string[];
  needs_reconciliation?: { tool: string }[] | undefined;
}

/** The job's own report with recourse: its outcome. */
export function resultOfOutcome(outcome: OutcomeLike): JobResult {
  return {
    status: outcome.status,
    done: [...outcome.completed_steps],
    inDoubt: (outcome.needs_reconciliation ?? []).map((entry) => entry.tool),
  };
}

interface StepsLike {
  steps: { toolResults: { toolName: string }[] }[];
}

/** The job's own report without recourse: every tool that returned a result is done. */
export function resultOfSteps(result: StepsLike): JobResult {
  return {
    status: 'COMPLETED',
    done: result.steps.flatMap((step) => step.toolResults.map((r) => r.toolName)),
    inDoubt: [],
  };
}

/** The tools the job calls, as `jobTools` builds them. */
type JobTools = ReturnType<typeof jobTools>;

/**
 * The engine alone: each tool's call one step of the engine (`step(name, run)`, with the
 * engine's own retries), then the job; every tool that returned is reported done.
 */
export async function runAlone(
  model: LanguageModel,
  raw: JobTools,
  step: (name: string, run: () => Promise<unknown>) => Promise<unknown>,
): Promise<JobResult> {
  const tools = Object.fromEntries(
    Object.entries(raw).map(([name, t]) => [
      name,
      {
        ...t,
        execute: (input: never, options: never) =>
          step(name, async () => await t.execute?.(input, options)),
      },
    ]),
  ) as unknown as JobTools;
  const result = await generateText({
    model,
    prompt: jobPrompt,
    tools,
    stopWhen: isStepCount(10),
    maxRetries: 0,
  });
  return resultOfSteps(result);
}

/** With recourse: the job through the recovery's tools; its outcome is the report. */
export async function runWithRecovery(
  model: LanguageModel,
  raw: JobTools,
  recovery: Pick<AiSdkRecovery, 'tools' | 'stopWhen' | 'prepareStep' | 'outcome'>,
): Promise<JobResult> {
  await generateText({
    model,
    prompt: jobPrompt,
    tools: recovery.tools(raw),
    stopWhen: [isStepCount(10), recovery.stopWhen],
    prepareStep: recovery.prepareStep,
    maxRetries: 0,
  });
  return resultOfOutcome(JSON.parse(JSON.stringify(recovery.outcome())));
}
