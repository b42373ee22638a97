import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { createFakeClock } from '@recourse/core/testing';
import {
  createScriptedProvider,
  httpError,
  type ProviderServer,
  startProviderServer,
  text,
  toolCall,
} from '@recourse/testing';
import { HttpResponse, http } from 'msw';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { OpenAIRecovery } from './create-recovery.js';
import type { AnyRecoveryToolSet } from './define-tools.js';
import { createRecovery } from './index.js';
import {
  createClient,
  createPayments,
  driveClock,
  type Mode,
  modes,
  runLoop,
} from './test-support/harness.js';

// A token in a downstream API's error message, and one in the model's tool input.
const errorToken = 'ghp_Ab3Cd5Ef7Gh9Jk1Lm3Np5Qr7St9Uv1Wx3Yz';
const inputToken = `sk-proj-${'Zq8v1WbX4kL9mN2pR7sT0uY3aC6dF5gH'.repeat(2)}`;
const statusError = 2;
const kind = { internal: 0, client: 2 };

const provider = createScriptedProvider();
const exporter = new InMemorySpanExporter();
let running: ProviderServer;
beforeAll(() => {
  running = startProviderServer(provider);
  // A downstream reached through a real client, so the tool throws a real APIError.
  running.server.use(
    http.get('https://github.test/repos/:owner/:repo', () =>
      HttpResponse.json({ message: `Bad credentials for token ${errorToken}` }, { status: 403 }),
    ),
  );
});
afterAll(() => running.close());
beforeEach(() => {
  provider.reset();
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
});
afterEach(() => {
  exporter.reset();
  trace.disable();
  context.disable();
});

/** Runs the loop inside an application span, as an instrumented agent would. */
async function runTraced(
  recovery: OpenAIRecovery,
  mode: Mode,
  tools: AnyRecoveryToolSet,
  clock?: ReturnType<typeof createFakeClock>,
) {
  const agent = trace.getTracer('app').startSpan('agent');
  const loop = context.with(trace.setSpan(context.active(), agent), () =>
    runLoop(recovery, createClient(provider), mode, tools, 'go'),
  );
  const result = await (clock ? driveClock(clock, loop) : loop);
  agent.end();
  return { result, agent };
}

function toolSpan(toolCallId: string): ReadableSpan {
  const found = exporter
    .getFinishedSpans()
    .filter((span) => span.attributes['gen_ai.tool.call.id'] === toolCallId);
  expect(found).toHaveLength(1);
  return found[0] as ReadableSpan;
}

function modelSpans(): ReadableSpan[] {
  return exporter
    .getFinishedSpans()
    .filter((span) => span.attributes['gen_ai.operation.name'] === 'chat');
}

function serialised(spans: readonly ReadableSpan[]): string {
  return JSON.stringify(
    spans.map((span) => [span.name, span.attributes, span.events, span.status]),
  );
}

describe.each(modes)('recourse spans through the OpenAI SDK ($api, stream: $stream)', (mode) => {
  it('a success: the tool span and one inference span per request, siblings under the agent', async () => {
    provider.reset([toolCall('get_balance', { account: 'a-1' }, { id: 'call_ok' }), text('ok')]);
    let inner: string | undefined;
    const recovery = createRecovery({ runId: 'run-o1', defaultPolicy: { sideEffects: false } });
    const tools = recovery.tools({
      get_balance: {
        inputSchema: z.object({ account: z.string() }),
        execute: ({ account }) => {
          inner = trace.getActiveSpan()?.spanContext().spanId;
          return { account, balance: 100 };
        },
      },
    });
    const { result, agent } = await runTraced(recovery, mode, tools);

    expect(result.outcome.status).toBe('COMPLETED');
    const span = toolSpan('call_ok');
    expect(span.name).toBe('execute_tool get_balance');
    expect(span.kind).toBe(kind.internal);
    expect(span.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'get_balance',
      'gen_ai.tool.call.id': 'call_ok',
      'gen_ai.tool.type': 'function',
      'recourse.run_id': 'run-o1',
      'recourse.attempts': 1,
    });
    expect(span.status.code).not.toBe(statusError);
    expect(inner).toBe(span.spanContext().spanId);

    const models = modelSpans();
    expect(models).toHaveLength(2);
    for (const model of models) {
      expect(model.name).toBe('chat gpt-4o');
      expect(model.kind).toBe(kind.client);
      expect(model.attributes).toEqual({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.request.stream': mode.stream,
        'recourse.run_id': 'run-o1',
        'recourse.attempts': 1,
      });
      expect(model.status.code).not.toBe(statusError);
    }
    // Also when the stream runs the call while it is read: tool and inference spans are
    // siblings, children of the agent's span, in one trace.
    for (const child of [span, ...models]) {
      expect(child.parentSpanContext?.spanId).toBe(agent.spanContext().spanId);
      expect(child.spanContext().traceId).toBe(agent.spanContext().traceId);
    }
    expect(exporter.getFinishedSpans()).toHaveLength(4);
  });

  it('a retried read: the retry event with its delay, attempts 2, class and recovery', async () => {
    provider.reset([toolCall('get_balance', { account: 'a-1' }, { id: 'call_r' }), text('ok')]);
    const clock = createFakeClock(1_000_000);
    let attempts = 0;
    const recovery = createRecovery({
      runId: 'run-o2',
      defaultPolicy: { sideEffects: false },
      clock,
      random: () => 0.5,
    });
    const tools = recovery.tools({
      get_balance: {
        inputSchema: z.object({ account: z.string() }),
        execute: ({ account }) => {
          if (++attempts === 1) throw Object.assign(new Error('upstream busy'), { status: 503 });
          return { account, balance: 100 };
        },
      },
    });
    await runTraced(recovery, mode, tools, clock);

    const span = toolSpan('call_r');
    expect(clock.sleeps).toHaveLength(1);
    expect(span.events.map((event) => [event.name, event.attributes])).toEqual([
      ['recourse.retry', { 'recourse.attempt': 1, 'recourse.retry.delay_ms': clock.sleeps[0] }],
    ]);
    expect(span.attributes).toMatchObject({
      'recourse.attempts': 2,
      'recourse.failure_class': 'TRANSIENT',
      'recourse.recovery.action': 'RETRY',
    });
    expect(span.attributes['error.type']).toBeUndefined();
    expect(span.status.code).not.toBe(statusError);
  });

  it('a retried model request: a 429 is one inference span with a retry event, attempts 2', async () => {
    provider.reset([httpError(429, { retryAfter: 2 }), text('ok')]);
    const clock = createFakeClock(1_000_000);
    const recovery = createRecovery({ runId: 'run-o3', clock });
    const tools = recovery.tools({
      echo: { inputSchema: z.object({ text: z.string() }), execute: (input) => input.text },
    });
    const { result } = await runTraced(recovery, mode, tools, clock);

    expect(result.outcome.status).toBe('COMPLETED');
    const [model, ...others] = modelSpans();
    expect(others).toEqual([]);
    expect(model?.events.map((event) => [event.name, event.attributes])).toEqual([
      [
        'recourse.retry',
        {
          'recourse.attempt': 1,
          'recourse.retry.delay_ms': clock.sleeps[0],
          'error.type': 'RATE_LIMITED',
        },
      ],
    ]);
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(2000);
    expect(model?.attributes).toMatchObject({
      'recourse.attempts': 2,
      'recourse.failure_class': 'TRANSIENT',
      'recourse.recovery.action': 'RETRY',
    });
    expect(model?.status.code).not.toBe(statusError);
  });

  it('a failed model request: a 401 is status ERROR with error.type, class and action', async () => {
    provider.reset([httpError(401), text('never')]);
    const recovery = createRecovery({ runId: 'run-o4' });
    const tools = recovery.tools({
      echo: { inputSchema: z.object({ text: z.string() }), execute: (input) => input.text },
    });
    const { result } = await runTraced(recovery, mode, tools);

    expect(result.outcome.status).toBe('FAILED');
    const [model] = modelSpans();
    expect(model?.status.code).toBe(statusError);
    expect(model?.attributes).toMatchObject({
      'error.type': 'NOT_AUTHORIZED',
      'recourse.failure_class': 'AUTHORIZATION',
      'recourse.recovery.action': 'ABORT',
      'recourse.decision.code': 'AUTHORIZATION_DENIED',
      'recourse.attempts': 1,
    });
  });

  it('a reconciled write: its idempotency key, UNKNOWN_OUTCOME → RECONCILE, no error status', async () => {
    provider.reset([
      toolCall('refund_payment', { paymentId: 'p-42', amount: 100 }, { id: 'call_w' }),
      text('done'),
    ]);
    const payments = createPayments({ dedupe: false });
    const recovery = createRecovery({
      runId: 'run-o5',
      policies: {
        refund_payment: {
          sideEffects: true,
          reconcile: (_input, { idempotencyKey }) =>
            payments.findByKey(idempotencyKey)
              ? { happened: true, result: 'refunded' }
              : { happened: false },
        },
      },
    });
    const tools = recovery.tools({
      refund_payment: {
        inputSchema: z.object({ paymentId: z.string(), amount: z.number() }),
        execute: (input, { idempotencyKey }) => payments.refund(input, idempotencyKey),
      },
    });
    await runTraced(recovery, mode, tools);

    expect(payments.writes).toHaveLength(1);
    const span = toolSpan('call_w');
    expect(span.attributes).toMatchObject({
      'gen_ai.tool.name': 'refund_payment',
      'recourse.idempotency_key': payments.writes[0]?.key,
      'recourse.attempts': 1,
      'recourse.failure_class': 'UNKNOWN_OUTCOME',
      'recourse.recovery.action': 'RECONCILE',
    });
    expect(span.attributes['error.type']).toBeUndefined();
    expect(span.status.code).not.toBe(statusError);
  });

  it('a denial and a blocked bypass: status ERROR, error.type, class, action; no token anywhere', async () => {
    provider.reset([
      toolCall('github_api', { repo: 'acme/secret', token: inputToken }, { id: 'call_403' }),
      toolCall('github_api', { repo: 'ACME/Secret', token: inputToken }, { id: 'call_bypass' }),
      text('could not read it'),
    ]);
    const reached: string[] = [];
    const recovery = createRecovery({
      runId: 'run-o6',
      onDenial: 'continue',
      policies: {
        github_api: {
          sideEffects: false,
          resource: (input: { repo: string }) => `https://github.com/${input.repo.toLowerCase()}`,
        },
      },
    });
    const tools = recovery.tools({
      github_api: {
        inputSchema: z.object({ repo: z.string(), token: z.string() }),
        execute: async (input) => {
          reached.push(input.repo);
          const client = new OpenAI({
            apiKey: input.token,
            baseURL: 'https://github.test',
            maxRetries: 0,
          });
          return client.get(`/repos/${input.repo}`);
        },
      },
    });
    await runTraced(recovery, mode, tools);

    expect(reached).toEqual(['acme/secret']);
    const denied = toolSpan('call_403');
    expect(denied.status.code).toBe(statusError);
    expect(denied.attributes).toMatchObject({
      'error.type': 'FORBIDDEN',
      'recourse.failure_class': 'AUTHORIZATION',
      'recourse.recovery.action': 'ABORT',
      'recourse.decision.code': 'AUTHORIZATION_DENIED',
      'recourse.attempts': 1,
    });
    const blocked = toolSpan('call_bypass');
    expect(blocked.status.code).toBe(statusError);
    expect(blocked.attributes).toMatchObject({
      'error.type': 'DENIED_EARLIER',
      'recourse.failure_class': 'AUTHORIZATION',
      'recourse.recovery.action': 'ABORT',
      'recourse.attempts': 0,
    });
    const everything = serialised(exporter.getFinishedSpans());
    expect(everything).not.toContain(errorToken.slice(4, 20));
    expect(everything).not.toContain(inputToken.slice(8, 24));
  });

  it('a poison step: the third identical validation failure is ERROR with decision code POISON', async () => {
    const bad = { customerId: 'c-1', email: 'not-an-email' };
    provider.reset([
      toolCall('update_email', bad, { id: 'call_v1' }),
      toolCall('update_email', bad, { id: 'call_v2' }),
      toolCall('update_email', bad, { id: 'call_v3' }),
      text('gave up'),
    ]);
    const recovery = createRecovery({ runId: 'run-o7', repairBudget: 2 });
    const tools = recovery.tools({
      update_email: {
        inputSchema: z.object({ customerId: z.string(), email: z.string() }),
        execute: (): string => {
          throw Object.assign(new Error(`email: invalid format (${errorToken})`), {
            status: 422,
          });
        },
      },
    });
    const { result } = await runTraced(recovery, mode, tools);

    expect(result.outcome).toMatchObject({ status: 'FAILED', reason: 'POISON' });
    const [first, second, third] = ['call_v1', 'call_v2', 'call_v3'].map(toolSpan);
    for (const repaired of [first, second]) {
      expect(repaired?.attributes).toMatchObject({
        'error.type': 'INVALID_INPUT',
        'recourse.failure_class': 'VALIDATION',
        'recourse.recovery.action': 'REPAIR',
      });
    }
    expect(third?.status.code).toBe(statusError);
    expect(third?.attributes).toMatchObject({
      'error.type': 'INVALID_INPUT',
      'recourse.failure_class': 'VALIDATION',
      'recourse.recovery.action': 'ABORT',
      'recourse.decision.code': 'POISON',
    });
    expect(serialised(exporter.getFinishedSpans())).not.toContain(errorToken.slice(4, 20));
  });
});
