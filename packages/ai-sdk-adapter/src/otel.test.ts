import { OpenTelemetry } from '@ai-sdk/otel';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { createRecovery } from '@recourse/ai-sdk';
import { createFakeClock } from '@recourse/core/testing';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, registerTelemetry, streamText, tool } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createDownstream,
  driveClock,
  httpFailure,
  useScriptedProvider,
} from '../test-support/harness.js';

const { provider, chat } = useScriptedProvider();
const exporter = new InMemorySpanExporter();
const statusError = 2;
// A token in a failing system's error text, and one in the model's tool input.
const errorToken = 'ghp_Ab3Cd5Ef7Gh9Jk1Lm3Np5Qr7St9Uv1Wx3Yz';
const inputToken = `sk-proj-${'Zq8v1WbX4kL9mN2pR7sT0uY3aC6dF5gH'.repeat(2)}`;

function recourseSpans(): ReadableSpan[] {
  return exporter
    .getFinishedSpans()
    .filter((span) => span.instrumentationScope.name === '@recourse/core');
}

function sdkSpans(): ReadableSpan[] {
  return exporter
    .getFinishedSpans()
    .filter((span) => span.instrumentationScope.name !== '@recourse/core');
}

/** Every recourse span of a call: exactly one per tool call id (no nested copies). */
function spanOf(toolCallId: string): ReadableSpan {
  const found = recourseSpans().filter(
    (span) => span.attributes['gen_ai.tool.call.id'] === toolCallId,
  );
  expect(found).toHaveLength(1);
  return found[0] as ReadableSpan;
}

function serialised(spans: ReadableSpan[]): string {
  return JSON.stringify(
    spans.map((span) => [span.name, span.attributes, span.events, span.status, span.links]),
  );
}

function parentOf(span: ReadableSpan): ReadableSpan | undefined {
  const id = span.parentSpanContext?.spanId;
  return exporter.getFinishedSpans().find((other) => other.spanContext().spanId === id);
}

/** The span and its ancestors' names, innermost first, with their scopes. */
function ancestry(span: ReadableSpan): string[] {
  const names: string[] = [];
  for (let at: ReadableSpan | undefined = span; at; at = parentOf(at))
    names.push(`${at.name} [${at.instrumentationScope.name}]`);
  return names;
}

const modes = [
  { telemetry: 'off', sdk: false },
  { telemetry: 'on', sdk: true },
] as const;

describe.each(modes)('recourse spans through the AI SDK (its telemetry $telemetry)', (mode) => {
  beforeEach(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    );
    // ai@7: a registered integration turns the SDK's telemetry on for every call.
    if (mode.sdk) registerTelemetry(new OpenTelemetry());
  });
  afterEach(() => {
    // ai@7 keeps registered integrations in this global; none is left for the next test.
    globalThis.AI_SDK_TELEMETRY_INTEGRATIONS = [];
    exporter.reset();
    trace.disable();
    context.disable();
  });

  /** The SDK's own spans are there exactly when its telemetry is on. */
  function expectSdkSpans() {
    if (mode.sdk) expect(sdkSpans().length).toBeGreaterThan(0);
    else expect(sdkSpans()).toEqual([]);
  }

  /**
   * With the SDK's telemetry on, recourse's span is a child of the SDK's `execute_tool`
   * span for the same call, in the same trace; with it off, it is a root span.
   */
  function expectPlacement(span: ReadableSpan) {
    const parent = parentOf(span);
    if (!mode.sdk) {
      expect(span.parentSpanContext).toBeUndefined();
      return;
    }
    expect(parent?.name).toBe(span.name);
    expect(parent?.instrumentationScope.name).not.toBe('@recourse/core');
    expect(parent?.attributes['gen_ai.tool.call.id']).toBe(span.attributes['gen_ai.tool.call.id']);
    expect(parent?.spanContext().traceId).toBe(span.spanContext().traceId);
  }

  it('a success: every GenAI attribute, the run, one attempt, no key for a read, no error', async () => {
    provider.reset([toolCall('get_balance', { account: 'a-1' }, { id: 'call_ok' }), text('ok')]);
    let inner: string | undefined;
    const recovery = createRecovery({ runId: 'run-o1', defaultPolicy: { sideEffects: false } });
    await generateText({
      model: chat(),
      prompt: 'Balance?',
      tools: recovery.tools({
        get_balance: tool({
          inputSchema: z.object({ account: z.string() }),
          execute: async ({ account }) => {
            inner = trace.getActiveSpan()?.spanContext().spanId;
            return { account, balance: 100 };
          },
        }),
      }),
      stopWhen: [isStepCount(5), recovery.stopWhen],
    });

    const span = spanOf('call_ok');
    expect(span.name).toBe('execute_tool get_balance');
    expect(span.kind).toBe(0); // INTERNAL
    expect(span.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'get_balance',
      'gen_ai.tool.call.id': 'call_ok',
      'gen_ai.tool.type': 'function',
      'recourse.run_id': 'run-o1',
      'recourse.attempts': 1,
    });
    expect(span.status.code).not.toBe(statusError);
    expect(span.events).toEqual([]);
    // The tool itself runs in recourse's span: its own spans nest under it.
    expect(inner).toBe(span.spanContext().spanId);
    expect(recourseSpans()).toHaveLength(1);
    expectPlacement(span);
    expectSdkSpans();
  });

  it('a retry: a recourse.retry event with the delay slept, attempts 2, class and recovery', async () => {
    provider.reset([toolCall('get_balance', { account: 'a-1' }, { id: 'call_r' }), text('ok')]);
    const clock = createFakeClock();
    let attempts = 0;
    const recovery = createRecovery({
      runId: 'run-o2',
      defaultPolicy: { sideEffects: false },
      clock,
      random: () => 0.5,
    });
    await driveClock(
      clock,
      generateText({
        model: chat(),
        prompt: 'Balance?',
        tools: recovery.tools({
          get_balance: tool({
            inputSchema: z.object({ account: z.string() }),
            execute: async ({ account }) => {
              if (++attempts === 1) throw httpFailure(503, {}, 'upstream busy');
              return { account, balance: 100 };
            },
          }),
        }),
        stopWhen: [isStepCount(5), recovery.stopWhen],
      }),
    );

    const span = spanOf('call_r');
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
    expect(span.attributes['recourse.idempotency_key']).toBeUndefined();
    expect(span.status.code).not.toBe(statusError);
    expectPlacement(span);
    expectSdkSpans();
  });

  it('a reconciled write: its idempotency key, UNKNOWN_OUTCOME → RECONCILE, no error status', async () => {
    provider.reset([
      toolCall('refund_payment', { paymentId: 'p-42', amount: 100 }, { id: 'call_w' }),
      text('done'),
    ]);
    const downstream = createDownstream();
    let calls = 0;
    const recovery = createRecovery({
      runId: 'run-o3',
      policies: {
        refund_payment: {
          sideEffects: true,
          reconcile: (_input, { idempotencyKey }) =>
            downstream.findByKey(idempotencyKey)
              ? { happened: true, result: 'refunded' }
              : { happened: false },
        },
      },
    });
    await generateText({
      model: chat(),
      prompt: 'Refund p-42',
      tools: recovery.tools({
        refund_payment: tool({
          inputSchema: z.object({ paymentId: z.string(), amount: z.number() }),
          // The refund lands downstream, then its response is lost.
          execute: async (input) => downstream.apply(input, ++calls === 1),
        }),
      }),
      stopWhen: [isStepCount(5), recovery.stopWhen],
    });

    const span = spanOf('call_w');
    expect(downstream.applied).toHaveLength(1);
    expect(span.attributes).toMatchObject({
      'gen_ai.tool.name': 'refund_payment',
      'recourse.idempotency_key': downstream.applied[0]?.key,
      'recourse.attempts': 1,
      'recourse.failure_class': 'UNKNOWN_OUTCOME',
      'recourse.recovery.action': 'RECONCILE',
    });
    expect(span.attributes['error.type']).toBeUndefined();
    expect(span.status.code).not.toBe(statusError);
    expectPlacement(span);
  });

  it('a denial and a blocked bypass: status ERROR, error.type, class, action; no token anywhere', async () => {
    provider.reset([
      toolCall(
        'github_api',
        { repo: 'acme/secret', path: 'README.md', token: inputToken },
        { id: 'call_403' },
      ),
      toolCall(
        'github_api',
        { repo: 'ACME/Secret', path: 'src/index.ts', token: inputToken },
        { id: 'call_bypass' },
      ),
      text('could not read it'),
    ]);
    const executed: string[] = [];
    const recovery = createRecovery({
      runId: 'run-o4',
      onDenial: 'continue',
      policies: {
        github_api: {
          sideEffects: false,
          resource: (input: { repo: string }) => `https://github.com/${input.repo.toLowerCase()}`,
        },
      },
    });
    await generateText({
      model: chat(),
      prompt: 'Read acme/secret',
      tools: recovery.tools({
        github_api: tool({
          inputSchema: z.object({ repo: z.string(), path: z.string(), token: z.string() }),
          execute: async ({ repo }): Promise<string> => {
            executed.push(repo);
            throw Object.assign(new Error(`Bad credentials for token ${errorToken}`), {
              status: 403,
            });
          },
        }),
      }),
      stopWhen: [isStepCount(5), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });

    expect(executed).toEqual(['acme/secret']);
    const denied = spanOf('call_403');
    expect(denied.status.code).toBe(statusError);
    expect(denied.attributes).toMatchObject({
      'error.type': 'FORBIDDEN',
      'recourse.failure_class': 'AUTHORIZATION',
      'recourse.recovery.action': 'ABORT',
      'recourse.decision.code': 'AUTHORIZATION_DENIED',
      'recourse.attempts': 1,
    });
    const blocked = spanOf('call_bypass');
    expect(blocked.status.code).toBe(statusError);
    expect(blocked.attributes).toMatchObject({
      'error.type': 'DENIED_EARLIER',
      'recourse.failure_class': 'AUTHORIZATION',
      'recourse.recovery.action': 'ABORT',
      'recourse.attempts': 0,
    });
    expectPlacement(denied);
    expectPlacement(blocked);
    // Neither the error's token nor the input's reaches any attribute, event or status
    // message of recourse's spans.
    expect(serialised(recourseSpans())).not.toContain(errorToken.slice(4, 20));
    expect(serialised(recourseSpans())).not.toContain(inputToken.slice(8, 24));
    // What recourse hands the SDK (the contract the SDK records as the tool's result,
    // and the model's next request) carries no error token either.
    expect(serialised(exporter.getFinishedSpans())).not.toContain(errorToken.slice(4, 20));
    // It does flow there, redacted: the SDK records the contract the model was sent.
    if (mode.sdk) expect(serialised(sdkSpans())).toContain(`Bad credentials for token [REDACTED]`);
    // The SDK's own spans record tool arguments and messages unless its telemetry says
    // `recordInputs: false, recordOutputs: false`: recourse cannot redact those.
    if (mode.sdk) expect(serialised(sdkSpans())).toContain(inputToken);
  });

  it('a poison step: the third identical validation failure is ERROR with decision code POISON', async () => {
    const bad = { customerId: 'c-1', email: 'not-an-email' };
    provider.reset([
      toolCall('update_email', bad, { id: 'call_v1' }),
      toolCall('update_email', bad, { id: 'call_v2' }),
      toolCall('update_email', bad, { id: 'call_v3' }),
      text('gave up'),
    ]);
    const recovery = createRecovery({ runId: 'run-o5', repairBudget: 2 });
    await generateText({
      model: chat(),
      prompt: 'Update the email',
      tools: recovery.tools({
        update_email: tool({
          inputSchema: z.object({ customerId: z.string(), email: z.string() }),
          execute: async (): Promise<string> => {
            throw Object.assign(new Error(`email: invalid format (${errorToken})`), {
              status: 422,
            });
          },
        }),
      }),
      stopWhen: [isStepCount(10), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });

    const [first, second, third] = ['call_v1', 'call_v2', 'call_v3'].map(spanOf);
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
    expect(recourseSpans()).toHaveLength(3);
    for (const span of [first, second, third]) expectPlacement(span as ReadableSpan);
    expect(serialised(exporter.getFinishedSpans())).not.toContain(errorToken.slice(4, 20));
  });

  it('input the SDK refused (execute never ran): a span too, attempts 0, up to POISON', async () => {
    const bad = { customerId: 'c-1', amount: 'one hundred' };
    provider.reset([
      toolCall('refund_payment', bad, { id: 'call_i1' }),
      toolCall('refund_payment', bad, { id: 'call_i2' }),
      toolCall('refund_payment', bad, { id: 'call_i3' }),
      text('gave up'),
    ]);
    const recovery = createRecovery({ runId: 'run-o7', repairBudget: 2 });
    await generateText({
      model: chat(),
      prompt: 'Refund',
      tools: recovery.tools({
        refund_payment: tool({
          inputSchema: z.object({ customerId: z.string(), amount: z.number() }),
          execute: async () => 'refunded',
        }),
      }),
      stopWhen: [isStepCount(10), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });

    const spans = ['call_i1', 'call_i2', 'call_i3'].map(spanOf);
    expect(spans.map((span) => span.attributes['recourse.recovery.action'])).toEqual([
      'REPAIR',
      'REPAIR',
      'ABORT',
    ]);
    expect(spans[2]?.attributes['recourse.decision.code']).toBe('POISON');
    for (const span of spans) {
      expect(span.status.code).toBe(statusError);
      expect(span.attributes).toMatchObject({
        'recourse.attempts': 0,
        'recourse.failure_class': 'VALIDATION',
      });
      expect(span.attributes['error.type']).toBe('INVALID_INPUT');
      // Heard of after the step, in a callback the SDK runs outside its spans: a root span.
      expect(span.parentSpanContext).toBeUndefined();
    }
  });

  it('streamText: the same one span per call, under the SDK span when its telemetry is on', async () => {
    provider.reset([toolCall('get_balance', { account: 'a-1' }, { id: 'call_s' }), text('ok')]);
    const recovery = createRecovery({ runId: 'run-o6', defaultPolicy: { sideEffects: false } });
    const result = streamText({
      model: chat(),
      prompt: 'Balance?',
      tools: recovery.tools({
        get_balance: tool({
          inputSchema: z.object({ account: z.string() }),
          execute: async ({ account }) => ({ account, balance: 100 }),
        }),
      }),
      stopWhen: [isStepCount(5), recovery.stopWhen],
    });
    await result.consumeStream();
    await result.steps;
    const span = spanOf('call_s');
    expect(span.attributes).toMatchObject({ 'recourse.attempts': 1 });
    expectPlacement(span);
    // The SDK's agent span, its step, its tool span, then recourse's: one trace.
    expect(ancestry(span)).toEqual(
      mode.sdk
        ? [
            'execute_tool get_balance [@recourse/core]',
            'execute_tool get_balance [gen_ai]',
            'step 1 [gen_ai]',
            'invoke_agent gpt-4o [gen_ai]',
          ]
        : ['execute_tool get_balance [@recourse/core]'],
    );
  });
});
