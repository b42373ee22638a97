import { httpError, scriptedProviderServer, text, toolCall } from '@recourse/testing';
import { HttpResponse, http } from 'msw';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRecovery, type OpenAIRecoveryOptions } from './index.js';
import { callService, createClient, modes, runLoop } from './test-support/harness.js';

const running = scriptedProviderServer();
const { provider } = running;

/** A cloud API over HTTP: `log` is every change it applied, undos included. */
const cloud = {
  log: [] as string[],
  /** Scripted answers of the next DELETEs (a status each, then 204). */
  deleteVm: [] as number[],
  deleteDns: [] as number[],
  vms: 0,
};

function answerDelete(queue: number[], applied: string) {
  const status = queue.shift() ?? 204;
  cloud.log.push(status === 204 ? applied : `${applied}: ${status}`);
  return status === 204 ? new HttpResponse(null, { status }) : HttpResponse.json({}, { status });
}

beforeAll(() => {
  running.start();
  running.server.use(
    http.post('https://cloud.test/vms', async ({ request }) => {
      const { name } = (await request.json()) as { name: string };
      cloud.log.push(`create vm ${name}`);
      return HttpResponse.json({ id: `vm-${++cloud.vms}`, name }, { status: 201 });
    }),
    http.delete('https://cloud.test/vms/:id', ({ params }) =>
      answerDelete(cloud.deleteVm, `delete vm ${params.id}`),
    ),
    http.put('https://cloud.test/dns/:host', ({ params }) => {
      cloud.log.push(`put dns ${params.host}`);
      return HttpResponse.json({ host: params.host });
    }),
    http.delete('https://cloud.test/dns/:host', ({ params }) =>
      answerDelete(cloud.deleteDns, `delete dns ${params.host}`),
    ),
    http.post('https://cloud.test/mail', () => {
      cloud.log.push('send mail');
      return HttpResponse.json({ queued: true }, { status: 202 });
    }),
    http.get('https://cloud.test/secrets/:name', () =>
      HttpResponse.json({ message: 'Forbidden' }, { status: 403 }),
    ),
  );
});
afterAll(running.stop);
beforeEach(() => {
  provider.reset();
  Object.assign(cloud, { log: [], deleteVm: [], deleteDns: [], vms: 0 });
});

type Vm = { id: string; name: string };

function provisioning(options: Partial<OpenAIRecoveryOptions> = {}) {
  const keys: Record<string, string> = {};
  const undos: Record<string, unknown[]> = { create_vm: [], configure_dns: [] };
  const recovery = createRecovery({ runId: 'run-os', retry: { baseDelayMs: 0 }, ...options });
  const tools = recovery.tools({
    create_vm: {
      description: 'Create a virtual machine',
      inputSchema: z.object({ name: z.string() }),
      execute: async (input, { idempotencyKey }) => {
        keys.create_vm = idempotencyKey;
        return (await callService('POST', 'https://cloud.test/vms', input)) as Vm;
      },
      policy: {
        sideEffects: true,
        // Undone by the id the create returned: the compensation gets the stored result.
        compensate: async (input, info) => {
          const result = info.result as Vm | undefined;
          undos.create_vm!.push({ input, idempotencyKey: info.idempotencyKey, result });
          await callService('DELETE', `https://cloud.test/vms/${result?.id}`);
        },
      },
    },
    configure_dns: {
      description: 'Point a DNS name at a VM',
      inputSchema: z.object({ host: z.string(), vm: z.string() }),
      execute: async (input, { idempotencyKey }) => {
        keys.configure_dns = idempotencyKey;
        return callService('PUT', `https://cloud.test/dns/${input.host}`, input);
      },
      policy: {
        sideEffects: true,
        compensate: async (input, info) => {
          undos.configure_dns!.push({
            input,
            idempotencyKey: info.idempotencyKey,
            result: info.result,
          });
          await callService('DELETE', `https://cloud.test/dns/${input.host}`);
        },
      },
    },
    send_email: {
      inputSchema: z.object({ to: z.string() }),
      execute: async (input) => callService('POST', 'https://cloud.test/mail', input),
      policy: { sideEffects: true }, // an email cannot be unsent
    },
    read_secret: {
      inputSchema: z.object({ name: z.string() }),
      execute: async ({ name }) => callService('GET', `https://cloud.test/secrets/${name}`),
      policy: { sideEffects: false },
    },
  });
  return { recovery, tools, keys, undos };
}

const vm = { name: 'web-7' };
const dns = { host: 'web-7.example.com', vm: 'vm-1' };

describe.each(modes)('compensation in the loop ($api, stream: $stream)', (mode) => {
  const run = (setup: ReturnType<typeof provisioning>) =>
    runLoop(setup.recovery, createClient(provider), mode, setup.tools, 'Provision web-7');

  it('recovery.compensate() undoes completed writes newest first, each once, with its key and stored result; a write without compensate is not_compensable', async () => {
    provider.reset([
      toolCall('create_vm', vm),
      toolCall('create_vm', vm), // asked again: answered from the ledger, one VM
      toolCall('send_email', { to: 'ops' }),
      toolCall('configure_dns', dns),
      text('provisioned'),
    ]);
    const setup = provisioning();
    const result = await run(setup);
    expect(result.outcome.status).toBe('COMPLETED');
    expect(result.outcome).not.toHaveProperty('compensated');
    expect(cloud.log).toEqual(['create vm web-7', 'send mail', 'put dns web-7.example.com']);

    const report = await setup.recovery.compensate();
    expect(report).toEqual({
      compensated: ['configure_dns', 'create_vm'],
      failed: [],
      not_compensable: ['send_email'],
    });
    expect(cloud.log.slice(3)).toEqual(['delete dns web-7.example.com', 'delete vm vm-1']);
    expect(setup.undos).toEqual({
      create_vm: [
        {
          input: vm,
          idempotencyKey: setup.keys.create_vm,
          result: { id: 'vm-1', name: 'web-7' },
        },
      ],
      configure_dns: [
        {
          input: dns,
          idempotencyKey: setup.keys.configure_dns,
          result: { host: 'web-7.example.com' },
        },
      ],
    });
    expect(setup.recovery.outcome()).toMatchObject({
      status: 'COMPLETED',
      compensated: ['configure_dns', 'create_vm'],
      failed: [],
      not_compensable: ['send_email'],
    });
    expect(await setup.recovery.compensate()).toEqual(report);
    expect(cloud.log).toHaveLength(5);
  });

  it('autoCompensate: a 403 on a later step ends the loop BLOCKED, with the writes already undone', async () => {
    provider.reset([
      toolCall('create_vm', vm),
      toolCall('configure_dns', dns),
      toolCall('read_secret', { name: 'prod-db' }),
      text('never asked'),
    ]);
    const setup = provisioning({ autoCompensate: true });
    const result = await run(setup);

    expect(result.steps).toBe(3);
    expect(cloud.log).toEqual([
      'create vm web-7',
      'put dns web-7.example.com',
      'delete dns web-7.example.com',
      'delete vm vm-1',
    ]);
    expect(result.outcome).toMatchObject({
      status: 'BLOCKED',
      reason: 'AUTHORIZATION_DENIED',
      compensated: ['configure_dns', 'create_vm'],
      failed: [],
      not_compensable: [],
    });
    await setup.recovery.compensate();
    expect(cloud.log).toHaveLength(4);
  });

  it('autoCompensate: a COMPLETED run keeps its writes', async () => {
    provider.reset([toolCall('create_vm', vm), toolCall('configure_dns', dns), text('done')]);
    const result = await run(provisioning({ autoCompensate: true }));
    expect(result.outcome.status).toBe('COMPLETED');
    expect(result.outcome).not.toHaveProperty('compensated');
    expect(cloud.log).toEqual(['create vm web-7', 'put dns web-7.example.com']);
  });

  it('a compensation that fails transiently is retried; one that fails permanently is listed in failed, and the others still run', async () => {
    cloud.deleteVm.push(503); // the VM's DELETE answers 503 once
    cloud.deleteDns.push(501); // the DNS provider does not support deleting records
    provider.reset([toolCall('create_vm', vm), toolCall('configure_dns', dns), text('done')]);
    const setup = provisioning();
    await run(setup);

    expect(await setup.recovery.compensate()).toEqual({
      compensated: ['create_vm'],
      failed: ['configure_dns'],
      not_compensable: [],
    });
    expect(cloud.log.slice(2)).toEqual([
      'delete dns web-7.example.com: 501',
      'delete vm vm-1: 503',
      'delete vm vm-1',
    ]);
    expect(setup.recovery.outcome().summary).toContain('not undone (failed): configure_dns');
  });

  // autoCompensate follows every way a run can stop: here arguments the adapter rejected
  // before execute (the third identical rejection is poison).
  it('autoCompensate: a run that ends FAILED by poison from rejected arguments undoes its writes', async () => {
    const invalid = { host: 'web-7.example.com' }; // no vm: the schema rejects it
    provider.reset([
      toolCall('create_vm', vm),
      toolCall('configure_dns', invalid),
      toolCall('configure_dns', invalid),
      toolCall('configure_dns', invalid),
      text('never asked'),
    ]);
    const result = await run(provisioning({ autoCompensate: true }));
    expect(result.outcome).toMatchObject({ status: 'FAILED', reason: 'POISON' });
    expect(cloud.log).toEqual(['create vm web-7', 'delete vm vm-1']);
  });

  // ... and the model itself staying unavailable (FAILED, MODEL_UNAVAILABLE).
  it('autoCompensate: a run that ends FAILED because the model is unavailable undoes its writes', async () => {
    provider.reset([toolCall('create_vm', vm), httpError(503), httpError(503)]);
    const result = await run(
      provisioning({ autoCompensate: true, retry: { maxAttempts: 2, baseDelayMs: 0 } }),
    );
    expect(result.outcome).toMatchObject({ status: 'FAILED', reason: 'MODEL_UNAVAILABLE' });
    expect(cloud.log).toEqual(['create vm web-7', 'delete vm vm-1']);
  });
});
