import { createRecovery } from '@recourse/ai-sdk';
import { type Clock, systemClock } from '@recourse/core';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, tool } from 'ai';
import { z } from 'zod';
import { httpError } from '../shared/downstream.js';
import { createExampleModel } from '../shared/model.js';
import { createTrace, type Log, type Observer } from '../shared/trace.js';

/**
 * Partial side effects: create a cloud resource ✅, configure DNS ✅, write the database
 * record ❌. The record write fails on every attempt (the inventory database answers 503,
 * so nothing was written and the last step is retried, within its attempts); then the run
 * is FAILED. With `autoCompensate` recourse undoes the completed writes, newest first: the
 * DNS record, then the VM. Each undo is claimed in the ledger, so asking again (or another
 * worker) undoes nothing twice. The outcome says what was undone, what failed to undo, and
 * what had no undo.
 */
export async function runSagaExample(
  log: Log = console.log,
  observe?: Observer,
  clock: Clock = systemClock,
) {
  const cloud: string[] = []; // every change the cloud applied, undo included
  const { model, close } = createExampleModel([
    toolCall('create_vm', { name: 'web-7', size: 'small' }),
    toolCall('configure_dns', { host: 'web-7.example.com', target: '10.0.0.7' }),
    toolCall('write_inventory_record', { vm: 'web-7', host: 'web-7.example.com' }),
    text('unreachable: the run stopped'),
  ]);
  const trace = createTrace(log, observe);
  const recovery = createRecovery({
    runId: 'run-saga-9',
    onEvent: trace.onEvent,
    clock,
    retry: { maxAttempts: 3 }, // attempts of one call, the first included
    autoCompensate: true,
    policies: {
      create_vm: {
        sideEffects: true,
        // Undone by the id the create returned (the compensation gets the stored result).
        compensate: (_input, { result }: { result?: { id: string } }) =>
          cloud.push(`delete vm ${result?.id}`),
      },
      configure_dns: {
        sideEffects: true,
        compensate: (input: { host: string }) => cloud.push(`delete dns ${input.host}`),
      },
      write_inventory_record: { sideEffects: true },
    },
  });
  try {
    await generateText({
      model,
      prompt: 'Provision web-7: a VM, its DNS name and its inventory record.',
      tools: recovery.tools({
        create_vm: tool({
          description: 'Create a virtual machine',
          inputSchema: z.object({ name: z.string(), size: z.string() }),
          execute: async ({ name }) => {
            cloud.push(`create vm ${name}`);
            return { id: 'vm-0af3', ip: '10.0.0.7' };
          },
        }),
        configure_dns: tool({
          description: 'Point a DNS name at an address',
          inputSchema: z.object({ host: z.string(), target: z.string() }),
          execute: async ({ host }) => {
            cloud.push(`create dns ${host}`);
            return 'configured';
          },
        }),
        write_inventory_record: tool({
          description: 'Write the inventory database record of a VM',
          inputSchema: z.object({ vm: z.string(), host: z.string() }),
          execute: async (): Promise<string> => {
            throw httpError(503, 'inventory database unavailable');
          },
        }),
      }),
      stopWhen: [isStepCount(6), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });
    const again = await recovery.compensate(); // already done: nothing is undone twice
    const outcome = recovery.outcome();
    trace.printOutcome(outcome);
    const { compensated, failed, not_compensable } = outcome;
    log(`compensation: ${JSON.stringify({ compensated, failed, not_compensable })}`);
    log(`cloud changes: ${cloud.join('; ')}`);
    return { outcome, cloud, again };
  } finally {
    close();
  }
}
