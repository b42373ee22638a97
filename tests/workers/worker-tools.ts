import { createRecovery, isToolCallFailure } from '@recourse/ai-sdk';
import {
  callContext,
  type Ledger,
  shellResources,
  type ToolPolicy,
  urlResource,
} from '@recourse/core';
import { APICallError, tool } from 'ai';
import { z } from 'zod';
import { openFileDownstream } from './downstream.js';
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
 * (always a 422), `read_repo` (403 for acme/secret) and `shell`.
 */
export function createWorkerRun(config: WorkerConfig, ledger: Ledger): WorkerRun {
  const downstream = openFileDownstream(config.downstreamDir, {
    dedupe: config.variant === 'idempotent',
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
  const recovery = createRecovery({
    runId: config.runId,
    ledger,
    policies: {
      transfer: transferPolicy,
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
