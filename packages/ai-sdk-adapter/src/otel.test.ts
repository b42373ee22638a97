import { OpenTelemetry } from '@ai-sdk/otel';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import type { AiSdkRecoveryOptions } from '@recourse/ai-sdk';
import { createRecovery } from '@recourse/ai-sdk';
import { describeToolSpans, spanTokens } from '@recourse/core/testing';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, registerTelemetry, streamText, tool } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { driveClock, httpFailure, useScriptedProvider } from '../test-support/harness.js';

const { provider, chat } = useScriptedProvider();
const exporter = new InMemorySpanExporter();
const statusError = 2;

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

beforeEach(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
});
afterEach(() => {
  // ai@7 keeps registered integrations in this global; none is left for the next test.
  globalThis.AI_SDK_TELEMETRY_INTEGRATIONS = [];
  exporter.reset();
  trace.disable();
  context.disable();
});

type Mode = (typeof modes)[number];

/** The SDK's own spans are there exactly when its telemetry is on. */
function expectSdkSpans(mode: Mode) {
  if (mode.sdk) expect(sdkSpans().length).toBeGreaterThan(0);
  else expect(sdkSpans()).toEqual([]);
}

/**
 * With the SDK's telemetry on, recourse's span is a child of the SDK's `execute_tool`
 * span for the same call, in the same trace; with it off, it is a root span.
 */
function expectPlacement(mode: Mode, span: ReadableSpan) {
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

const schemaOf = (fields: Record<string, 'string' | 'number'>) =>
  z.object(
    Object.fromEntries(
      Object.entries(fields).map(([name, type]) => [
        name,
        type === 'string' ? z.string() : z.number(),
      ]),
    ),
  );

// The shared tool-spans suite (`@recourse/core/testing`) through generateText.
describeToolSpans(
  'recourse spans through the AI SDK (its telemetry $telemetry)',
  modes,
  (mode) => ({
    async run(calls, answer, options, tools, clock) {
      // ai@7: a registered integration turns the SDK's telemetry on for every call.
      if (mode.sdk) registerTelemetry(new OpenTelemetry());
      provider.reset([...calls.map((c) => toolCall(c.name, c.input, { id: c.id })), text(answer)]);
      const recovery = createRecovery({
        ...(options as unknown as AiSdkRecoveryOptions),
        ...(clock ? { clock } : {}),
      });
      const run = generateText({
        model: chat(),
        prompt: 'Go',
        tools: recovery.tools(
          Object.fromEntries(
            Object.entries(tools).map(([name, t]) => [
              name,
              tool({ inputSchema: schemaOf(t.fields), execute: async (input) => t.execute(input) }),
            ]),
          ),
        ),
        stopWhen: [isStepCount(10), recovery.stopWhen],
        prepareStep: recovery.prepareStep,
      });
      await (clock ? driveClock(clock, run) : run);
      return { outcome: recovery.outcome() };
    },
    spans: () => exporter.getFinishedSpans(),
    busy: () => httpFailure(503, {}, 'upstream busy'),
    forbidden: async (_repo, _token) => {
      throw Object.assign(new Error(`Bad credentials for token ${spanTokens.error}`), {
        status: 403,
      });
    },
    expectPlacement: (span) => {
      expectPlacement(mode, span as ReadableSpan);
      expectSdkSpans(mode);
    },
    expectSdkSpans: (sdk) => {
      // It does flow there, redacted: the SDK records the contract the model was sent.
      if (mode.sdk) expect(sdk).toContain(`Bad credentials for token [REDACTED]`);
      // The SDK's own spans record tool arguments and messages unless its telemetry says
      // `recordInputs: false, recordOutputs: false`: recourse cannot redact those.
      if (mode.sdk) expect(sdk).toContain(spanTokens.input);
    },
  }),
);

describe.each(modes)('recourse spans through the AI SDK (its telemetry $telemetry)', (mode) => {
  beforeEach(() => {
    // ai@7: a registered integration turns the SDK's telemetry on for every call.
    if (mode.sdk) registerTelemetry(new OpenTelemetry());
  });
  const expectPlacementHere = (span: ReadableSpan) => expectPlacement(mode, span);
  const expectSdkSpansHere = () => expectSdkSpans(mode);

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
    expectPlacementHere(span);
    expectSdkSpansHere();
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
    expectPlacementHere(span);
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
