import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createHarness,
  httpFailure,
  timeoutAfterWrite,
} from '../../test-support/runtime-harness.js';

const exporter = new InMemorySpanExporter();

function register() {
  const manager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
}

function spansNamed(name: string): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((span) => span.name === name);
}

const secret = `sk-proj-${'Zq8v1WbX4kL9mN2pR7sT0uY3aC6dF5gH'.repeat(2)}`;

describe('call spans with an OpenTelemetry SDK registered', () => {
  beforeEach(register);
  afterEach(() => {
    exporter.reset();
    trace.disable();
    context.disable();
  });

  it('a success: one execute_tool span with the GenAI attributes, in the active context', async () => {
    const h = createHarness({ policies: { lookup: { sideEffects: false } } });
    const parent = trace.getTracer('app').startSpan('agent step');
    let inner: string | undefined;
    await context.with(trace.setSpan(context.active(), parent), () =>
      h.run(
        'lookup',
        { id: 1 },
        () => {
          inner = trace.getActiveSpan()?.spanContext().spanId;
          return 'ok';
        },
        'call_1',
      ),
    );
    parent.end();
    const [span] = spansNamed('execute_tool lookup');
    expect(span?.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup',
      'gen_ai.tool.call.id': 'call_1',
      'recourse.run_id': 'run-1842',
      'recourse.attempts': 1,
    });
    expect(span?.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
    // The tool itself runs inside recourse's span.
    expect(inner).toBe(span?.spanContext().spanId);
    expect(span?.status.code).not.toBe(2);
    expect(span?.attributes['recourse.idempotency_key']).toBeUndefined();
  });

  it('a retried read: retry events with their delay, then success', async () => {
    const h = createHarness({ policies: { lookup: { sideEffects: false } } });
    let calls = 0;
    await h.run('lookup', {}, () => {
      if (++calls < 3) throw httpFailure(503);
      return 'ok';
    });
    const [span] = spansNamed('execute_tool lookup');
    expect(span?.events.map((e) => e.name)).toEqual(['recourse.retry', 'recourse.retry']);
    expect(span?.events[0]?.attributes).toMatchObject({ 'recourse.retry.delay_ms': 150 });
    expect(span?.attributes).toMatchObject({
      'recourse.attempts': 3,
      'recourse.failure_class': 'TRANSIENT',
      'recourse.recovery.action': 'RETRY',
    });
  });

  it('a reconciled write: the key, the recovery, no error status', async () => {
    const h = createHarness({
      policies: {
        refund: { sideEffects: true, reconcile: () => ({ happened: true, result: 'done' }) },
      },
    });
    await h.run('refund', { id: 'p-1' }, () => {
      throw timeoutAfterWrite();
    });
    const [span] = spansNamed('execute_tool refund');
    expect(span?.attributes).toMatchObject({
      'recourse.recovery.action': 'RECONCILE',
      'recourse.failure_class': 'UNKNOWN_OUTCOME',
      'recourse.deduplicated': true,
    });
    expect(String(span?.attributes['recourse.idempotency_key'])).toMatch(/^run-1842:refund:/);
    expect(span?.status.code).not.toBe(2);
  });

  it('a block and a poison step: status ERROR with error.type, class and action; no secret anywhere', async () => {
    const h = createHarness({
      onDenial: 'continue',
      policies: {
        repo: {
          sideEffects: false,
          resource: (i: { name: string }) => `https://github.com/${i.name}`,
        },
      },
    });
    // Another run: after a denial, a tool without a resource function is blocked too.
    const other = createHarness({ runId: 'run-2', policies: { extract: { sideEffects: false } } });
    await h.run('repo', { name: 'acme/secret' }, () => {
      throw httpFailure(403, `Forbidden for token ${secret}`);
    });
    await h.run('repo', { name: 'acme/secret' }, () => 'never');
    for (let i = 0; i < 3; i++) {
      await other.run('extract', { text: 'x' }, () => {
        throw httpFailure(422, `field total is invalid (${secret})`);
      });
    }
    const [denied, blocked] = spansNamed('execute_tool repo');
    expect(denied?.status.code).toBe(2);
    expect(denied?.attributes).toMatchObject({
      'error.type': 'FORBIDDEN',
      'recourse.failure_class': 'AUTHORIZATION',
      'recourse.recovery.action': 'ABORT',
    });
    expect(blocked?.attributes).toMatchObject({ 'error.type': 'DENIED_EARLIER' });
    const poison = spansNamed('execute_tool extract')[2];
    expect(poison?.attributes).toMatchObject({
      'recourse.failure_class': 'VALIDATION',
      'recourse.recovery.action': 'ABORT',
      'recourse.decision.code': 'POISON',
    });
    const everything = JSON.stringify(
      exporter.getFinishedSpans().map((s) => [s.attributes, s.events, s.status]),
    );
    expect(everything).not.toContain('Zq8v1WbX');
  });
});

describe('call spans of calls the caller aborts', () => {
  beforeEach(register);
  afterEach(() => {
    exporter.reset();
    trace.disable();
    context.disable();
  });

  const stoppedByUser = () => new DOMException('stopped by user', 'AbortError');

  /** Starts a call, waits until it sleeps in a backoff (or runs), then aborts it. */
  async function abortWhilePending(
    h: ReturnType<typeof createHarness>,
    request: {
      toolName: string;
      input: unknown;
      execute: (signal: AbortSignal | undefined) => unknown;
    },
    until: () => boolean,
  ) {
    const controller = new AbortController();
    const reason = stoppedByUser();
    const pending = h.runtime.execute({
      ...request,
      toolCallId: 'call_abort',
      signal: controller.signal,
      execute: (_input, signal) => request.execute(signal),
    });
    for (let i = 0; i < 20 && !until(); i++) await new Promise((r) => setImmediate(r));
    expect(until()).toBe(true);
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  }

  it('during a retry backoff: ABORTED, with the attempts made and the failure being retried', async () => {
    const h = createHarness({ policies: { lookup: { sideEffects: false } } });
    await abortWhilePending(
      h,
      {
        toolName: 'lookup',
        input: {},
        execute: () => {
          throw httpFailure(503);
        },
      },
      () => h.clock.pending() > 0,
    );
    const [span] = spansNamed('execute_tool lookup');
    expect(span?.status).toMatchObject({ code: 2, message: 'aborted by the caller' });
    expect(span?.attributes).toMatchObject({
      'error.type': 'ABORTED',
      'recourse.attempts': 1,
      'recourse.failure_class': 'TRANSIENT',
      'recourse.recovery.action': 'RETRY',
    });
    expect(span?.events.map((e) => e.name)).toEqual(['recourse.retry']);
    expect(span?.attributes['recourse.idempotency_key']).toBeUndefined();
  });

  it('a write aborted during its replay backoff: the key, the in-doubt class, REPLAY', async () => {
    const h = createHarness({ policies: { transfer: { sideEffects: true, idempotent: true } } });
    await abortWhilePending(
      h,
      {
        toolName: 'transfer',
        input: { amount: 5 },
        execute: () => {
          throw timeoutAfterWrite();
        },
      },
      () => h.clock.pending() > 0,
    );
    const [span] = spansNamed('execute_tool transfer');
    expect(span?.attributes).toMatchObject({
      'error.type': 'ABORTED',
      'recourse.attempts': 1,
      'recourse.failure_class': 'UNKNOWN_OUTCOME',
      'recourse.recovery.action': 'REPLAY',
    });
    expect(String(span?.attributes['recourse.idempotency_key'])).toMatch(/^run-1842:transfer:/);
  });

  it('during the first attempt: ABORTED and attempts 1, no failure class (nothing had failed)', async () => {
    const h = createHarness({ policies: { lookup: { sideEffects: false } } });
    let started = false;
    await abortWhilePending(
      h,
      {
        toolName: 'lookup',
        input: {},
        // A tool that honours its signal: the caller's abort ends it.
        execute: (signal) => {
          started = true;
          return new Promise((_resolve, reject) =>
            signal?.addEventListener('abort', () => reject(signal.reason)),
          );
        },
      },
      () => started,
    );
    const [span] = spansNamed('execute_tool lookup');
    expect(span?.attributes).toMatchObject({ 'error.type': 'ABORTED', 'recourse.attempts': 1 });
    expect(span?.attributes['recourse.failure_class']).toBeUndefined();
    expect(span?.attributes['recourse.recovery.action']).toBeUndefined();
  });
});

describe('without an SDK', () => {
  it('records nothing and the call works', async () => {
    const h = createHarness({ policies: { lookup: { sideEffects: false } } });
    expect(trace.getActiveSpan()).toBeUndefined();
    await expect(h.run('lookup', {}, () => 'ok')).resolves.toMatchObject({ ok: true });
    expect(exporter.getFinishedSpans()).toHaveLength(0);
  });
});
