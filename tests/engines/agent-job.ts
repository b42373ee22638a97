import { type ScriptEntry, text, toolCall } from '@recourse/testing';
import { tool } from 'ai';
import { z } from 'zod';
import { type FileDownstream, openFileDownstream } from '../workers/downstream.js';

/**
 * The job every engine test runs: five tool steps, then an answer. A read, an idempotent
 * write (the downstream dedupes on the key), a reconcilable write (the downstream can be
 * asked by key), a write with neither, and a last read.
 */
export const jobSteps = [
  { tool: 'read_account', input: { account: 'acme' } },
  { tool: 'reserve_stock', input: { sku: 'sku-7', units: 3 } },
  { tool: 'charge_card', input: { account: 'acme', amount: 120 } },
  { tool: 'send_letter', input: { to: 'acme', text: 'Your order is on its way' } },
  { tool: 'read_status', input: { order: 'o-1' } },
] as const;

export type WriteTool = 'reserve_stock' | 'charge_card' | 'send_letter';
export const writeTools: readonly WriteTool[] = ['reserve_stock', 'charge_card', 'send_letter'];

/**
 * The model's script as one entry that reads the conversation: each answer depends only on
 * how many tool results came back, so a model call replayed by the engine or asked again
 * by a resumed process gets the same answer, and call ids never repeat.
 */
export const jobScript: readonly ScriptEntry[] = [
  (request) => {
    const done = request.toolResults.length;
    const step = jobSteps[done];
    return step ? toolCall(step.tool, step.input, { id: `call_step_${done + 1}` }) : text('done');
  },
];

/** Where the job's writes land: the idempotent write's downstream dedupes, the others do not. */
export interface JobDownstreams {
  stock: FileDownstream;
  payments: FileDownstream;
  letters: FileDownstream;
}

export function openJobDownstreams(dir: string): JobDownstreams {
  return {
    stock: openFileDownstream(`${dir}/stock`, { dedupe: true }),
    payments: openFileDownstream(`${dir}/payments`, { dedupe: false }),
    letters: openFileDownstream(`${dir}/letters`, { dedupe: false }),
  };
}

export interface JobToolHooks {
  /** The key a write sends downstream. */
  key(): string;
  /** Called where a write is under way; may never return (the process is killed there). */
  point(name: string): Promise<void>;
  /** Thrown by the first attempt of reserve_stock when set: a 429 with a Retry-After. */
  rateLimitOnce?: (() => Error | undefined) | undefined;
  /** Told of every request a write sends, refused or not. */
  sent?: ((name: WriteTool) => void) | undefined;
  worker: number;
}

/**
 * A 429 with a Retry-After of `seconds`, thrown once (the first attempt of reserve_stock);
 * with no seconds, never.
 */
export function retryAfterOnce(seconds: number | undefined): () => Error | undefined {
  let thrown = false;
  return () => {
    if (seconds === undefined || thrown) return undefined;
    thrown = true;
    return Object.assign(new Error('429 Too Many Requests'), {
      status: 429,
      headers: new Headers({ 'retry-after': String(seconds) }),
    });
  };
}

/** The job's tools, over the file downstreams (they survive a SIGKILL and serve every process). */
export function jobTools(downstreams: JobDownstreams, hooks: JobToolHooks) {
  const write = async (name: WriteTool, target: FileDownstream) => {
    const key = hooks.key();
    hooks.sent?.(name);
    if (name === 'reserve_stock') {
      const refused = hooks.rateLimitOnce?.();
      if (refused) throw refused;
    }
    const receipt = target.write(key, hooks.worker, name);
    await hooks.point(`during:${name}`);
    return receipt;
  };
  return {
    read_account: tool({
      inputSchema: z.object({ account: z.string() }),
      execute: async ({ account }) => ({ account, balance: 500 }),
    }),
    reserve_stock: tool({
      inputSchema: z.object({ sku: z.string(), units: z.number() }),
      execute: () => write('reserve_stock', downstreams.stock),
    }),
    charge_card: tool({
      inputSchema: z.object({ account: z.string(), amount: z.number() }),
      execute: () => write('charge_card', downstreams.payments),
    }),
    send_letter: tool({
      inputSchema: z.object({ to: z.string(), text: z.string() }),
      execute: () => write('send_letter', downstreams.letters),
    }),
    read_status: tool({
      inputSchema: z.object({ order: z.string() }),
      execute: async ({ order }) => ({ order, status: 'packed' }),
    }),
  };
}
