import { createRecovery, isToolCallFailure } from '@recourse/ai-sdk';
import {
  type CompensateFunction,
  callContext,
  type Ledger,
  shellResources,
  type ToolPolicy,
  urlResource,
} from '@recourse/core';
import { APICallError, tool } from 'ai';
import { z } from 'zod';
import { openFileDownstream, type TransferReceipt } from './downstream.js';
import type { CallReport, WorkerConfig } from './protocol.js';

export type WrappedExecute = (
  input: unknown,
  options: { toolCallId: string; messages: [] },
) => Promise<unknown>;

export interface WorkerRun {
  recovery: ReturnType<typeof createRecovery>;
  events: string[];
  /** How many times a tool body ran in this process. */
  executions: () => number;
  /** Calls a wrapped tool the way the AI SDK does, and reports what the model would get. */
  call: (toolName: string, input: unknown, onExecuted?: () => Promise<void>) => Promise<CallReport>;
}

export interface WorkerHooks {
  /** Runs inside a compensation once its undo landed downstream, before it returns. */
  afterUndo?: ((undo: { key: string; tool: string }) => Promise<void>) | undefined;
}

/** A real error object of the AI SDK, as a provider call inside a tool would throw it. */
function httpError(statusCode: number, url: string): APICallError {
  return new APICallError({
    message: `HTTP ${statusCode}`,
    url,
    requestBodyValues: {},
    statusCode,
    responseHeaders: {},
    responseBody: '{"error":"refused"}',
  });
}

/**
 * One worker's recovery layer over the shared ledger, with its tools: `transfer` (a write
 * to the shared file downstream, sending `callContext().idempotencyKey`), `submit_form`
 * (always a 422), `read_repo` (403 for acme/secret), `shell`, and `create_vm` and
 * `configure_dns` (writes whose `compensate` sends an undo downstream).
 */
export function createWorkerRun(
  config: WorkerConfig,
  ledger: Ledger,
  hooks: WorkerHooks = {},
): WorkerRun {
  const downstream = openFileDownstream(config.downstreamDir, {
    dedupe: config.variant === 'idempotent',
    dedupeUndos: config.idempotentUndo,
    refuseFirstUndo: config.refuseFirstUndo,
  });
  const events: string[] = [];
  let executions = 0;
  let afterExecute: (() => Promise<void>) | undefined;
  const transferPolicy: ToolPolicy = { sideEffects: true };
  if (config.variant === 'idempotent') transferPolicy.idempotent = true;
  if (config.variant === 'reconcile') {
    transferPolicy.reconcile = (_input, { idempotencyKey }) => {
      const receipt = downstream.find(idempotencyKey);
      return receipt ? { happened: true, result: receipt } : { happened: false };
    };
  }
  // The undo goes out under the compensation's own key (the write's key + `:compensate`),
  // naming the write it undoes and the receipt it was handed.
  const undoOf =
    (tool: string): CompensateFunction<unknown, unknown> =>
    async (_input, { idempotencyKey, result }) => {
      const key = callContext().idempotencyKey;
      const of = (result as TransferReceipt | undefined)?.transferId;
      const answer = downstream.undo({
        key,
        tool,
        worker: config.worker,
        writeKey: idempotencyKey,
        of,
      });
      if (answer === 'unavailable') throw httpError(503, 'https://cloud.test/undo');
      await hooks.afterUndo?.({ key, tool });
      return { undone: idempotencyKey };
    };
  // Declared idempotent, an undo left in doubt by a dead worker is replayed behind its key.
  const undo = (tool: string): ToolPolicy['compensate'] =>
    config.idempotentUndo ? { undo: undoOf(tool), idempotent: true } : undoOf(tool);
  const recovery = createRecovery({
    runId: config.runId,
    ledger,
    policies: {
      transfer: transferPolicy,
      create_vm: { sideEffects: true, compensate: undo('create_vm') },
      configure_dns: { sideEffects: true, compensate: undo('configure_dns') },
      read_repo: {
        resource: (input: { repo: string }) => urlResource(`https://github.com/${input.repo}`),
      },
      shell: { resource: (input: { command: string }) => shellResources(input.command) },
    },
    onDenial: 'continue',
    // Longer than any lease here: a duplicate waits for the holder, or for its lease to expire.
    inFlightWaitMs: 30_000,
    onEvent: (event) => events.push(event.type),
  });
  const tools = recovery.tools({
    transfer: tool({
      inputSchema: z.object({ op: z.number(), amount: z.number() }),
      execute: async () => {
        executions++;
        const receipt = downstream.write(callContext().idempotencyKey, config.worker);
        await afterExecute?.();
        return receipt;
      },
    }),
    submit_form: tool({
      inputSchema: z.object({ email: z.string() }),
      execute: async (): Promise<string> => {
        executions++;
        throw httpError(422, 'https://forms.test/submit');
      },
    }),
    read_repo: tool({
      inputSchema: z.object({ repo: z.string() }),
      execute: async ({ repo }) => {
        executions++;
        if (repo === 'acme/secret') throw httpError(403, `https://api.github.com/repos/${repo}`);
        return { repo, files: ['README.md'] };
      },
    }),
    shell: tool({
      inputSchema: z.object({ command: z.string() }),
      execute: async ({ command }) => {
        executions++;
        return `ran: ${command}`;
      },
    }),
    create_vm: tool({
      inputSchema: z.object({ name: z.string() }),
      execute: async () => {
        executions++;
        return downstream.write(callContext().idempotencyKey, config.worker, 'create_vm');
      },
    }),
    configure_dns: tool({
      inputSchema: z.object({ host: z.string(), vm: z.string() }),
      execute: async () => {
        executions++;
        return downstream.write(callContext().idempotencyKey, config.worker, 'configure_dns');
      },
    }),
  });
  let callNumber = 0;
  const call: WorkerRun['call'] = async (toolName, input, onExecuted) => {
    const execute = (tools as Record<string, { execute?: unknown }>)[toolName]?.execute as
      | WrappedExecute
      | undefined;
    if (!execute) throw new Error(`no tool ${toolName}`);
    afterExecute = onExecuted;
    const label = `${toolName} ${JSON.stringify(input)}`;
    try {
      const value = await execute(input, {
        toolCallId: `call-${config.worker}-${callNumber++}`,
        messages: [],
      });
      // A failed call returns the recovery contract as the tool result (the default
      // failureMode): exactly what the model reads, so that is what the worker reports.
      if (isToolCallFailure(value)) return { call: label, ok: false, contract: value };
      return { call: label, ok: true, value };
    } catch (error) {
      // failureMode 'throw': the thrown error's text is the contract.
      return { call: label, ok: false, contract: JSON.parse(String(error)) };
    }
  };
  return { recovery, events, executions: () => executions, call };
}
