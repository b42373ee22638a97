import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { createFakeClock, describeToolSpans, spanTokens } from '@recourse/core/testing';
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
import { createRecovery, type OpenAIRecoveryOptions } from './index.js';
import { createClient, driveClock, type Mode, modes, runLoop } from './test-support/harness.js';

// The token in the downstream API's error message (the shared suite's).
const errorToken = spanTokens.error;
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

const schemaOf = (fields: Record<string, 'string' | 'number'>) =>
  z.object(
    Object.fromEntries(
      Object.entries(fields).map(([name, type]) => [
        name,
        type === 'string' ? z.string() : z.number(),
      ]),
    ),
  );

// The shared tool-spans suite (`@recourse/core/testing`) through the real `openai` client,
// inside an application span.
describeToolSpans(
  'recourse spans through the OpenAI SDK ($api, stream: $stream)',
  modes,
  (mode) => ({
    async run(calls, answer, options, tools, clock) {
      provider.reset([...calls.map((c) => toolCall(c.name, c.input, { id: c.id })), text(answer)]);
      const recovery = createRecovery({
        ...(options as unknown as OpenAIRecoveryOptions),
        ...(clock ? { clock } : {}),
      });
      const wrapped = recovery.tools(
        Object.fromEntries(
          Object.entries(tools).map(([name, t]) => [
            name,
            {
              inputSchema: schemaOf(t.fields),
              execute: (input: Record<string, unknown>) => t.execute(input),
            },
          ]),
        ),
      );
      const { result } = await runTraced(recovery, mode, wrapped, clock);
      return { outcome: result.outcome };
    },
    spans: () => exporter.getFinishedSpans(),
    busy: () => Object.assign(new Error('upstream busy'), { status: 503 }),
    // A downstream reached through a real client, so the tool throws a real APIError.
    forbidden: (repo, token) =>
      new OpenAI({ apiKey: token, baseURL: 'https://github.test', maxRetries: 0 }).get(
        `/repos/${repo}`,
      ),
  }),
);

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
});
