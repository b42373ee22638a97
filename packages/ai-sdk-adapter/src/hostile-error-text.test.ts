import { createOpenAI } from '@ai-sdk/openai';
import { createRecovery } from '@recourse/ai-sdk';
import {
  createScriptedProvider,
  hostileErrorTexts,
  type ProviderServer,
  startProviderServer,
  text,
  toolCall,
} from '@recourse/testing';
import { generateText, isStepCount, tool } from 'ai';
import { HttpResponse, http } from 'msw';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { failureIn, readContract } from '../test-support/harness.js';

// Error text is written by whatever failed, and sometimes by whoever controls it. Here a
// downstream API answers with an error body that tries to steer the model; the same call
// is run again with the same status and a plain body. Everything the policy decides must
// be the same, the injection may reach the model only inside `error_detail`, quoted and
// neutralised, and no other tool may run.

const provider = createScriptedProvider();
const openai = createOpenAI({ baseURL: provider.baseURL, apiKey: 'test' });
const models = [
  { api: 'chat', model: () => openai.chat('gpt-4o') },
  { api: 'responses', model: () => openai.responses('gpt-4o') },
] as const;

// What the downstream answers to the current call.
const downstream = { status: 404, body: '', requests: 0 };
let running: ProviderServer;
beforeAll(() => {
  running = startProviderServer(provider);
  running.server.use(
    http.get('https://issues.test/issues/:id', () => {
      downstream.requests += 1;
      return new HttpResponse(downstream.body, {
        status: downstream.status,
        headers: { 'content-type': 'application/json' },
      });
    }),
  );
});
afterAll(() => running.close());
beforeEach(() => provider.reset([]));

const plainBody = '{"error":{"message":"Issue 7 could not be read"}}';

const attacks = hostileErrorTexts;

// The escaped form of `value` as it appears in a request body: JSON text inside a JSON
// string (the tool result), inside the request's JSON.
const inRequest = (value: string) => JSON.stringify(JSON.stringify(value)).slice(1, -1);

async function runCall(model: () => ReturnType<typeof openai.chat>, status: number, body: string) {
  downstream.status = status;
  downstream.body = body;
  downstream.requests = 0;
  provider.reset([toolCall('get_issue', { id: '7' }), text('I could not read the issue.')]);
  const ran = { delete_repository: 0, shell: 0 };
  const recovery = createRecovery({
    runId: 'run-hostile',
    retry: { baseDelayMs: 0 }, // no backoff waits
    policies: { get_issue: { sideEffects: false } },
  });
  const result = await generateText({
    model: model(),
    prompt: 'Read issue 7',
    tools: recovery.tools({
      get_issue: tool({
        description: 'Read an issue',
        inputSchema: z.object({ id: z.string() }),
        execute: async ({ id }) => {
          const response = await fetch(`https://issues.test/issues/${id}`);
          if (response.ok) return response.json();
          // As fetch wrappers (ofetch, ky) throw it: the status on the error, the body in its text.
          throw Object.assign(
            new Error(
              `GET /issues/${id} failed with ${response.status}: ${await response.clone().text()}`,
            ),
            { response },
          );
        },
      }),
      delete_repository: tool({
        description: 'Delete a repository',
        inputSchema: z.object({ repo: z.string() }),
        execute: async () => {
          ran.delete_repository += 1;
          return 'deleted';
        },
      }),
      shell: tool({
        description: 'Run a shell command',
        inputSchema: z.object({ command: z.string() }),
        execute: async () => {
          ran.shell += 1;
          return 'ok';
        },
      }),
    }),
    stopWhen: [isStepCount(5), recovery.stopWhen],
    prepareStep: recovery.prepareStep,
  });
  // The contract the call ended with; when the run went on, the model received exactly it.
  const { contract } = failureIn(result.steps[0]);
  const output = provider.toolResults()[0]?.output;
  if (output !== undefined) expect(readContract(output)).toEqual(contract);
  return {
    contract: contract as unknown as Record<string, unknown>,
    bodies: provider.requests.map((request) => request.rawBody),
    outcome: recovery.outcome(),
    steps: result.steps.length,
    downstreamRequests: downstream.requests,
    ran,
  };
}

const statuses = [404, 409, 422, 403, 503] as const;

describe.each(models)('hostile error text through the AI SDK ($api)', ({ model }) => {
  const controls = new Map<number, Awaited<ReturnType<typeof runCall>>>();
  const control = async (status: number) => {
    const known = controls.get(status);
    if (known) return known;
    const run = await runCall(model, status, plainBody);
    controls.set(status, run);
    return run;
  };

  it('gives the usual decision for each status without an injection', async () => {
    const expected = {
      404: ['PERMANENT', 'REPLAN'],
      409: ['STALE_STATE', 'REOBSERVE'],
      422: ['VALIDATION', 'REPAIR'],
      403: ['AUTHORIZATION', 'ABORT'],
      503: ['TRANSIENT', 'ABORT'],
    } as const;
    for (const status of statuses) {
      const { contract } = await control(status);
      expect([contract.failure_class, contract.recommended_recovery]).toEqual(expected[status]);
      expect(contract.error_detail).toContain('Issue 7 could not be read');
    }
  });

  it.each(
    attacks.map(
      (attack, index) => [attack.name, attack, statuses[index % statuses.length]] as const,
    ),
  )('%s changes nothing the policy decides', async (_name, attack, status) => {
    const plain = await control(status as number);
    const hostile = await runCall(model, status as number, attack.body);

    // The decision, the contract's other fields, the outcome and the calls are the same.
    const { error_detail: detail, ...fields } = hostile.contract;
    const { error_detail: _plainDetail, ...plainFields } = plain.contract;
    expect(fields).toEqual(plainFields);
    expect(hostile.contract.recommended_recovery).toBe(plain.contract.recommended_recovery);
    expect(hostile.contract.retry_same_action).toBe(plain.contract.retry_same_action);
    expect(hostile.outcome.status).toBe(plain.outcome.status);
    expect(hostile.steps).toBe(plain.steps);
    expect(hostile.downstreamRequests).toBe(plain.downstreamRequests);
    expect(hostile.ran).toEqual({ delete_repository: 0, shell: 0 });

    // The injection is inside error_detail only, quoted and neutralised.
    if (typeof detail !== 'string') throw new Error('the contract has no error_detail');
    expect(detail.startsWith('«') && detail.endsWith('»')).toBe(true);
    const quoted = detail.slice(1, -1).normalize('NFKC');
    expect(quoted).not.toMatch(/[«»\r\n]/);
    for (const phrase of attack.neutralised) expect(quoted).not.toMatch(phrase);
    // The attack did reach the quote: something in it was recognised and removed.
    expect(quoted).toContain('[instruction-like text removed]');
    const everythingElse = hostile.bodies.map((body) => body.split(inRequest(detail)).join('""'));
    for (const marker of attack.markers) {
      for (const body of everythingElse) expect(body).not.toContain(marker);
    }
  });
});
