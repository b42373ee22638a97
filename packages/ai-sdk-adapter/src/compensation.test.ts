import { createRecovery } from '@recourse/ai-sdk';
import { callContext, MemoryLedger } from '@recourse/core';
import { httpError, text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, tool } from 'ai';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { callService, readContract, useScriptedProvider } from '../test-support/harness.js';

const { provider, chat, use } = useScriptedProvider();

/**
 * A cloud API over HTTP. `log` is every change it applied, undos included. The DELETE
 * answers of a VM or a DNS record can be scripted (a status each, then 204).
 */
function useCloud(answers: { deleteVm?: number[]; deleteDns?: number[] } = {}) {
  const log: string[] = [];
  const deleteVm = [...(answers.deleteVm ?? [])];
  const deleteDns = [...(answers.deleteDns ?? [])];
  let vms = 0;
  const answer = (queue: number[], applied: string) => {
    const status = queue.shift() ?? 204;
    log.push(status === 204 ? applied : `${applied}: ${status}`);
    return status === 204 ? new HttpResponse(null, { status }) : HttpResponse.json({}, { status });
  };
  use(
    http.post('https://cloud.test/vms', async ({ request }) => {
      const { name } = (await request.json()) as { name: string };
      log.push(`create vm ${name}`);
      return HttpResponse.json({ id: `vm-${++vms}`, name }, { status: 201 });
    }),
    http.delete('https://cloud.test/vms/:id', ({ params }) =>
      answer(deleteVm, `delete vm ${params.id}`),
    ),
    http.put('https://cloud.test/dns/:host', ({ params }) => {
      log.push(`put dns ${params.host}`);
      return HttpResponse.json({ host: params.host });
    }),
    http.delete('https://cloud.test/dns/:host', ({ params }) =>
      answer(deleteDns, `delete dns ${params.host}`),
    ),
    http.post('https://cloud.test/mail', () => {
      log.push('send mail');
      return HttpResponse.json({ queued: true }, { status: 202 });
    }),
    http.get('https://cloud.test/secrets/:name', () =>
      HttpResponse.json({ message: 'Forbidden' }, { status: 403 }),
    ),
  );
  return log;
}

type Vm = { id: string; name: string };

/** What the compensations were given, by tool. */
type Undos = Record<string, { input: unknown; idempotencyKey: string; result: unknown }[]>;

function provisioning(options: { loseDnsResponse?: boolean } = {}) {
  const keys: Record<string, string> = {};
  const undos: Undos = { create_vm: [], configure_dns: [] };
  const tools = {
    create_vm: tool({
      description: 'Create a virtual machine',
      inputSchema: z.object({ name: z.string() }),
      execute: async (input) => {
        keys.create_vm = callContext().idempotencyKey;
        return (await callService('POST', 'https://cloud.test/vms', input)) as Vm;
      },
    }),
    configure_dns: tool({
      description: 'Point a DNS name at a VM',
      inputSchema: z.object({ host: z.string(), vm: z.string() }),
      execute: async (input) => {
        keys.configure_dns = callContext().idempotencyKey;
        const record = await callService('PUT', `https://cloud.test/dns/${input.host}`, input);
        // The record was written, but the answer never arrived.
        if (options.loseDnsResponse)
          throw new DOMException('The operation timed out.', 'TimeoutError');
        return record;
      },
    }),
    send_email: tool({
      description: 'Tell the team',
      inputSchema: z.object({ to: z.string() }),
      execute: async (input) => callService('POST', 'https://cloud.test/mail', input),
    }),
    read_secret: tool({
      description: 'Read a secret',
      inputSchema: z.object({ name: z.string() }),
      execute: async ({ name }) => callService('GET', `https://cloud.test/secrets/${name}`),
    }),
  };
  const policies = {
    create_vm: {
      sideEffects: true,
      // Undone by the id the create returned: the compensation gets the stored result.
      compensate: async (
        input: { name: string },
        info: { idempotencyKey: string; result?: Vm | undefined },
      ) => {
        undos.create_vm!.push({ input, idempotencyKey: info.idempotencyKey, result: info.result });
        await callService('DELETE', `https://cloud.test/vms/${info.result?.id}`);
      },
    },
    configure_dns: {
      sideEffects: true,
      compensate: async (
        input: { host: string },
        info: { idempotencyKey: string; result?: unknown },
      ) => {
        undos.configure_dns!.push({
          input,
          idempotencyKey: info.idempotencyKey,
          result: info.result,
        });
        await callService('DELETE', `https://cloud.test/dns/${input.host}`);
      },
    },
    send_email: { sideEffects: true }, // an email cannot be unsent
    read_secret: { sideEffects: false },
  };
  return { tools, policies, keys, undos };
}

const vm = { name: 'web-7' };
const dns = { host: 'web-7.example.com', vm: 'vm-1' };

describe('compensation of completed writes through generateText', () => {
  it('recovery.compensate() undoes them newest first, each once, with its key and stored result; a write without compensate is not_compensable', async () => {
    const log = useCloud();
    provider.reset([
      toolCall('create_vm', vm),
      toolCall('create_vm', vm), // asked again: answered from the ledger, one VM
      toolCall('send_email', { to: 'ops' }),
      toolCall('configure_dns', dns),
      text('provisioned'),
    ]);
    const { tools, policies, keys, undos } = provisioning();
    const recovery = createRecovery({ runId: 'run-s1' });
    await generateText({
      model: chat(),
      prompt: 'Provision web-7',
      tools: recovery.tools(tools, policies),
      stopWhen: [isStepCount(8), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });
    expect(recovery.outcome().status).toBe('COMPLETED');
    expect(recovery.outcome()).not.toHaveProperty('compensated');
    expect(log).toEqual(['create vm web-7', 'send mail', 'put dns web-7.example.com']);

    const report = await recovery.compensate();
    expect(report).toEqual({
      compensated: ['configure_dns', 'create_vm'],
      failed: [],
      not_compensable: ['send_email'],
    });
    expect(log.slice(3)).toEqual(['delete dns web-7.example.com', 'delete vm vm-1']);
    expect(undos).toEqual({
      create_vm: [
        { input: vm, idempotencyKey: keys.create_vm, result: { id: 'vm-1', name: 'web-7' } },
      ],
      configure_dns: [
        { input: dns, idempotencyKey: keys.configure_dns, result: { host: 'web-7.example.com' } },
      ],
    });
    const outcome = recovery.outcome();
    expect(outcome).toMatchObject({
      status: 'COMPLETED',
      compensated: ['configure_dns', 'create_vm'],
      failed: [],
      not_compensable: ['send_email'],
    });
    expect(outcome.summary).toContain('undone: configure_dns, create_vm');

    // Asked again: nothing more is undone.
    expect(await recovery.compensate()).toEqual(report);
    expect(log).toHaveLength(5);
  });

  it('autoCompensate: a 403 on a later step ends the run BLOCKED, and the writes are undone before generateText returns', async () => {
    const log = useCloud();
    provider.reset([
      toolCall('create_vm', vm),
      toolCall('configure_dns', dns),
      toolCall('read_secret', { name: 'prod-db' }),
      text('never asked'),
    ]);
    const { tools, policies } = provisioning();
    const recovery = createRecovery({ runId: 'run-s2', autoCompensate: true });
    const result = await generateText({
      model: chat(),
      prompt: 'Provision web-7 and wire its database',
      tools: recovery.tools(tools, policies),
      stopWhen: [isStepCount(8), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });

    expect(result.steps).toHaveLength(3);
    expect(log).toEqual([
      'create vm web-7',
      'put dns web-7.example.com',
      'delete dns web-7.example.com',
      'delete vm vm-1',
    ]);
    expect(recovery.outcome()).toMatchObject({
      status: 'BLOCKED',
      reason: 'AUTHORIZATION_DENIED',
      compensated: ['configure_dns', 'create_vm'],
      failed: [],
      not_compensable: [],
    });
    expect(await recovery.compensate()).toMatchObject({
      compensated: ['configure_dns', 'create_vm'],
    });
    expect(log).toHaveLength(4);
  });

  it('autoCompensate: a run that ends FAILED undoes its completed writes; the write in doubt is left for a person', async () => {
    const log = useCloud();
    provider.reset([
      toolCall('create_vm', vm),
      toolCall('configure_dns', dns),
      text('never asked'),
    ]);
    const { tools, policies, keys } = provisioning({ loseDnsResponse: true });
    const recovery = createRecovery({ runId: 'run-s3', autoCompensate: true });
    await generateText({
      model: chat(),
      prompt: 'Provision web-7',
      tools: recovery.tools(tools, policies),
      stopWhen: [isStepCount(8), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });

    expect(log).toEqual(['create vm web-7', 'put dns web-7.example.com', 'delete vm vm-1']);
    expect(recovery.outcome()).toMatchObject({
      status: 'FAILED',
      reason: 'RECONCILE_BY_HAND',
      compensated: ['create_vm'],
      failed: [],
      not_compensable: [],
      needs_reconciliation: [{ tool: 'configure_dns', idempotency_key: keys.configure_dns }],
    });
  });

  // autoCompensate follows every way a run can stop: here the SDK rejected the arguments
  // before `execute`, and the third identical rejection is poison.
  it('autoCompensate: a run that ends FAILED by poison from arguments the SDK rejected undoes its writes', async () => {
    const log = useCloud();
    const invalid = { host: 'web-7.example.com' }; // no vm: the input schema rejects it
    provider.reset([
      toolCall('create_vm', vm),
      toolCall('configure_dns', invalid),
      toolCall('configure_dns', invalid),
      toolCall('configure_dns', invalid),
      text('never asked'),
    ]);
    const { tools, policies } = provisioning();
    const recovery = createRecovery({ runId: 'run-s6', autoCompensate: true });
    await generateText({
      model: chat(),
      prompt: 'Provision web-7',
      tools: recovery.tools(tools, policies),
      stopWhen: [isStepCount(8), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });

    expect(recovery.outcome()).toMatchObject({ status: 'FAILED', reason: 'POISON' });
    expect(log).toEqual(['create vm web-7', 'delete vm vm-1']);
    expect(recovery.outcome()).toMatchObject({ compensated: ['create_vm'] });
  });

  it('autoCompensate: the model going down mid-run (generateText throws) ends the run FAILED through modelFailed, and the writes are undone', async () => {
    const log = useCloud();
    provider.reset([toolCall('create_vm', vm), toolCall('configure_dns', dns), httpError(503)]);
    const { tools, policies } = provisioning();
    const recovery = createRecovery({ runId: 'run-s7', autoCompensate: true });
    const failure = await generateText({
      model: chat(),
      prompt: 'Provision web-7',
      tools: recovery.tools(tools, policies),
      stopWhen: [isStepCount(8), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
      maxRetries: 0,
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(Error);
    // Before recourse hears of it, the outcome cannot know the model is gone.
    expect(recovery.outcome().status).toBe('COMPLETED');

    const outcome = await recovery.modelFailed(failure);
    expect(outcome).toMatchObject({
      status: 'FAILED',
      reason: 'MODEL_UNAVAILABLE',
      compensated: ['configure_dns', 'create_vm'],
    });
    expect(log).toEqual([
      'create vm web-7',
      'put dns web-7.example.com',
      'delete dns web-7.example.com',
      'delete vm vm-1',
    ]);
    // Told twice, nothing changes and nothing is undone again.
    expect(await recovery.modelFailed(failure)).toEqual(outcome);
    expect(log).toHaveLength(4);
  });

  it('autoCompensate: a COMPLETED run keeps its writes', async () => {
    const log = useCloud();
    provider.reset([
      toolCall('create_vm', vm),
      toolCall('configure_dns', dns),
      text('provisioned'),
    ]);
    const { tools, policies } = provisioning();
    const recovery = createRecovery({ runId: 'run-s4', autoCompensate: true });
    await generateText({
      model: chat(),
      prompt: 'Provision web-7',
      tools: recovery.tools(tools, policies),
      stopWhen: [isStepCount(8), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });

    expect(log).toEqual(['create vm web-7', 'put dns web-7.example.com']);
    expect(recovery.outcome().status).toBe('COMPLETED');
    expect(recovery.outcome()).not.toHaveProperty('compensated');
  });

  it('a compensation that fails transiently is retried; one that fails permanently is listed in failed, and the others still run', async () => {
    // The VM's DELETE answers 503 once; the DNS provider does not support deleting records.
    const log = useCloud({ deleteVm: [503], deleteDns: [501] });
    provider.reset([
      toolCall('create_vm', vm),
      toolCall('configure_dns', dns),
      text('provisioned'),
    ]);
    const { tools, policies } = provisioning();
    // No backoff to wait for: the retry of the undo is sent at once.
    const recovery = createRecovery({ runId: 'run-s5', retry: { baseDelayMs: 0 } });
    await generateText({
      model: chat(),
      prompt: 'Provision web-7',
      tools: recovery.tools(tools, policies),
      stopWhen: [isStepCount(8), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });

    const report = await recovery.compensate();
    expect(report).toEqual({
      compensated: ['create_vm'],
      failed: ['configure_dns'],
      not_compensable: [],
    });
    expect(log.slice(2)).toEqual([
      'delete dns web-7.example.com: 501',
      'delete vm vm-1: 503',
      'delete vm vm-1',
    ]);
    expect(recovery.outcome()).toMatchObject({
      compensated: ['create_vm'],
      failed: ['configure_dns'],
    });
    expect(recovery.outcome().summary).toContain('not undone (failed): configure_dns');
  });

  it('another worker on the same ledger does not undo a write twice', async () => {
    const log = useCloud();
    const ledger = new MemoryLedger();
    provider.reset([toolCall('create_vm', vm), text('provisioned')]);
    const first = provisioning();
    const worker = createRecovery({ runId: 'run-s7', ledger });
    await generateText({
      model: chat(),
      prompt: 'Provision web-7',
      tools: worker.tools(first.tools, first.policies),
      stopWhen: [isStepCount(4), worker.stopWhen],
    });
    expect(await worker.compensate()).toMatchObject({ compensated: ['create_vm'] });

    // A second worker of the same run: the model asks for the same VM (answered from the
    // ledger), and this worker is asked to compensate too.
    provider.reset([toolCall('create_vm', vm), text('provisioned')]);
    const second = provisioning();
    const other = createRecovery({ runId: 'run-s7', ledger });
    await generateText({
      model: chat(),
      prompt: 'Provision web-7',
      tools: other.tools(second.tools, second.policies),
      stopWhen: [isStepCount(4), other.stopWhen],
    });
    expect(await other.compensate()).toMatchObject({ compensated: ['create_vm'], failed: [] });
    expect(log).toEqual(['create vm web-7', 'delete vm vm-1']);
    expect(second.undos.create_vm).toEqual([]);
  });

  it('a write whose check says it failed is not a completed write: only the corrected one is undone', async () => {
    const payments: string[] = [];
    use(
      http.post('https://pay.test/refunds', async ({ request }) => {
        const { amount } = (await request.json()) as { amount: number };
        payments.push(`refund ${amount}`);
        // A 200 whose body says the refund was not made.
        return HttpResponse.json(
          amount > 50
            ? { ok: false, error: 'amount exceeds the charge' }
            : { ok: true, id: 're_1' },
        );
      }),
      http.post('https://pay.test/refunds/:id/cancel', ({ params }) => {
        payments.push(`cancel ${params.id}`);
        return HttpResponse.json({ ok: true });
      }),
    );
    provider.reset([
      toolCall('refund_payment', { paymentId: 'p-1', amount: 100 }),
      toolCall('refund_payment', { paymentId: 'p-1', amount: 50 }),
      text('refunded 50'),
    ]);
    type Refund = { ok: boolean; id?: string; error?: string };
    const recovery = createRecovery({ runId: 'run-s8' });
    await generateText({
      model: chat(),
      prompt: 'Refund p-1',
      tools: recovery.tools(
        {
          refund_payment: tool({
            inputSchema: z.object({ paymentId: z.string(), amount: z.number() }),
            execute: async (input) =>
              (await callService('POST', 'https://pay.test/refunds', input)) as Refund,
          }),
        },
        {
          refund_payment: {
            sideEffects: true,
            check: (refund) =>
              refund.ok ? undefined : { message: `${refund.error}`, code: 'REFUND_REJECTED' },
            compensate: async (_input, { result }) => {
              await callService('POST', `https://pay.test/refunds/${result?.id}/cancel`);
            },
          },
        },
      ),
      stopWhen: [isStepCount(6), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });

    expect(readContract(provider.toolResults()[0]!.output)).toMatchObject({
      code: 'REFUND_REJECTED',
      recommended_recovery: 'REPAIR',
    });
    expect(recovery.outcome()).toMatchObject({
      status: 'COMPLETED',
      completed_steps: ['refund_payment'],
    });
    expect(await recovery.compensate()).toEqual({
      compensated: ['refund_payment'],
      failed: [],
      not_compensable: [],
    });
    expect(payments).toEqual(['refund 100', 'refund 50', 'cancel re_1']);
  });
});
