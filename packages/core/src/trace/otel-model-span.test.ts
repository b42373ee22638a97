import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, drive, httpFailure } from '../../test-support/runtime-harness.js';
import { resolveTelemetry } from './resolve-telemetry.js';

const exporter = new InMemorySpanExporter();
const spanKindClient = 2;
const statusError = 2;
const gpt = { model: 'gpt-4o', provider: 'openai', stream: false };

function register() {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
}

function only(name: string): ReadableSpan {
  const found = exporter.getFinishedSpans().filter((span) => span.name === name);
  expect(found).toHaveLength(1);
  return found[0] as ReadableSpan;
}

afterEach(() => {
  exporter.reset();
  trace.disable();
  context.disable();
});

describe('model request spans (GenAI inference conventions)', () => {
  it('a success: `chat gpt-4o`, kind CLIENT, the request attributes, in the active context', async () => {
    register();
    const h = createHarness();
    const parent = trace.getTracer('app').startSpan('agent');
    let inner: string | undefined;
    const result = await context.with(trace.setSpan(context.active(), parent), () =>
      h.runtime.callModel(
        async () => {
          inner = trace.getActiveSpan()?.spanContext().spanId;
          return 'answer';
        },
        undefined,
        gpt,
      ),
    );
    parent.end();
    expect(result).toEqual({ ok: true, value: 'answer' });
    const span = only('chat gpt-4o');
    expect(span.kind).toBe(spanKindClient);
    expect(span.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.request.stream': false,
      'recourse.run_id': 'run-1842',
      'recourse.attempts': 1,
    });
    expect(span.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
    // The request itself (and an instrumented HTTP client's spans) runs inside it.
    expect(inner).toBe(span.spanContext().spanId);
    expect(span.status.code).not.toBe(statusError);
  });

  it('retried 503s: one span, a recourse.retry event per retry with its delay and error type', async () => {
    register();
    const h = createHarness();
    let calls = 0;
    const result = await drive(
      h.clock,
      h.runtime.callModel(
        async () => {
          if (++calls < 3) throw httpFailure(503);
          return 'answer';
        },
        undefined,
        gpt,
      ),
    );
    expect(result.ok).toBe(true);
    const span = only('chat gpt-4o');
    expect(span.events.map((event) => event.name)).toEqual(['recourse.retry', 'recourse.retry']);
    expect(span.events.map((event) => event.attributes)).toEqual([
      {
        'recourse.attempt': 1,
        'recourse.retry.delay_ms': h.clock.sleeps[0],
        'error.type': 'SERVICE_UNAVAILABLE',
      },
      {
        'recourse.attempt': 2,
        'recourse.retry.delay_ms': h.clock.sleeps[1],
        'error.type': 'SERVICE_UNAVAILABLE',
      },
    ]);
    expect(span.attributes).toMatchObject({
      'recourse.attempts': 3,
      'recourse.failure_class': 'TRANSIENT',
      'recourse.recovery.action': 'RETRY',
    });
    expect(span.attributes['error.type']).toBeUndefined();
    expect(span.status.code).not.toBe(statusError);
  });

  it('a 401: status ERROR, error.type, the class, the action and the decision code', async () => {
    register();
    const h = createHarness();
    const result = await h.runtime.callModel(
      async () => {
        throw httpFailure(401, 'Incorrect API key provided: sk-proj-Zq8v1WbX4kL9mN2pR7sT0uY3');
      },
      undefined,
      gpt,
    );
    expect(result.ok).toBe(false);
    const span = only('chat gpt-4o');
    expect(span.status.code).toBe(statusError);
    expect(span.attributes).toMatchObject({
      'error.type': 'NOT_AUTHORIZED',
      'recourse.failure_class': 'AUTHORIZATION',
      'recourse.recovery.action': 'ABORT',
      'recourse.decision.code': 'AUTHORIZATION_DENIED',
      'recourse.attempts': 1,
    });
    expect(JSON.stringify([span.attributes, span.events, span.status])).not.toContain('Zq8v1WbX');
  });

  it("the caller's abort: status ERROR, error.type ABORTED, and the abort still escapes", async () => {
    register();
    const h = createHarness();
    const controller = new AbortController();
    const request = h.runtime.callModel(
      async () => {
        controller.abort();
        throw new DOMException('This operation was aborted', 'AbortError');
      },
      controller.signal,
      gpt,
    );
    await expect(request).rejects.toThrow('aborted');
    const span = only('chat gpt-4o');
    expect(span.status.code).toBe(statusError);
    expect(span.attributes['error.type']).toBe('ABORTED');
  });

  it('a request described by nothing is a `chat` span without model or provider', async () => {
    register();
    const h = createHarness();
    await h.runtime.callModel(async () => 'answer');
    const span = only('chat');
    expect(span.attributes['gen_ai.operation.name']).toBe('chat');
    expect(span.attributes['gen_ai.request.model']).toBeUndefined();
    expect(span.attributes['gen_ai.provider.name']).toBeUndefined();
  });

  it('a tool call made while a streamed response is read is a sibling of the inference span', async () => {
    register();
    const h = createHarness({ policies: { lookup: { sideEffects: false } } });
    const parent = trace.getTracer('app').startSpan('agent');
    await context.with(trace.setSpan(context.active(), parent), () =>
      h.runtime.callModel(
        async () => {
          await h.run('lookup', {}, () => 'found');
          return 'answer';
        },
        undefined,
        { ...gpt, stream: true },
      ),
    );
    parent.end();
    const model = only('chat gpt-4o');
    const tool = only('execute_tool lookup');
    expect(model.attributes['gen_ai.request.stream']).toBe(true);
    expect(tool.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
    expect(model.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
  });
});

describe('a tracer given in the options', () => {
  it('records the call and model spans without any global provider', async () => {
    const own = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(own)] });
    const h = createHarness({
      tracer: provider.getTracer('my-agent'),
      policies: { lookup: { sideEffects: false } },
    });
    await h.runtime.callModel(async () => 'answer', undefined, gpt);
    await h.run('lookup', {}, () => 'found');
    expect(own.getFinishedSpans().map((span) => span.name)).toEqual([
      'chat gpt-4o',
      'execute_tool lookup',
    ]);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});

describe('model requests without an SDK', () => {
  it('build no span: startModel answers undefined and the request runs', async () => {
    const telemetry = resolveTelemetry(undefined);
    expect(telemetry?.startModel('run-1', gpt)).toBeUndefined();
    expect(telemetry?.start('run-1', 't', 'c')).toBeUndefined();
    const h = createHarness();
    await expect(h.runtime.callModel(async () => 'answer', undefined, gpt)).resolves.toEqual({
      ok: true,
      value: 'answer',
    });
    expect(exporter.getFinishedSpans()).toHaveLength(0);
  });
});
