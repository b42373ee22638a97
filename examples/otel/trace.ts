import { OpenTelemetry } from '@ai-sdk/otel';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  ConsoleSpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { createRecovery as createAiSdkRecovery } from '@recourse/ai-sdk';
import type { Outcome } from '@recourse/core';
import { createRecovery as createOpenAIRecovery } from '@recourse/openai';
import { httpError as scriptedHttpError, text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, tool } from 'ai';
import { z } from 'zod';
import { createPaymentProvider, httpError } from '../shared/downstream.js';
import { createExampleModel } from '../shared/model.js';
import { createExampleClient } from '../shared/openai-client.js';
import type { Log } from '../shared/trace.js';
import { SpanTreeExporter } from './span-tree-exporter.js';

export interface OtelExampleOptions {
  /**
   * Also export every span through the SDK's own `ConsoleSpanExporter`, which prints one
   * object per span (`console.dir`) as it ends: what the SDK shows without any code of
   * ours. `./run.sh demo otel --console`.
   */
  console?: boolean | undefined;
}

/**
 * A run's OpenTelemetry trace. An application registers an SDK (here the SDK's basic
 * provider with an exporter that prints a tree, and with `console`, the SDK's
 * `ConsoleSpanExporter` too); recourse finds it through the global API, with nothing to
 * configure. Through the AI SDK with its own telemetry on, each recourse span sits under
 * the SDK's `execute_tool` span; through the OpenAI SDK, where recourse runs the loop,
 * each model request gets its inference span too.
 */
export async function runOtelExample(log: Log = console.log, options: OtelExampleOptions = {}) {
  const exporter = new SpanTreeExporter();
  const provider = new BasicTracerProvider({
    spanProcessors: [
      new SimpleSpanProcessor(exporter),
      ...(options.console ? [new SimpleSpanProcessor(new ConsoleSpanExporter())] : []),
    ],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  // With the console exporter on, its objects come first (as each span ends), the tree after.
  const section = async <T>(title: string, run: () => Promise<T>): Promise<T> => {
    log(title);
    if (options.console) log("the SDK's ConsoleSpanExporter, one object per span as it ends:");
    const result = await run();
    if (options.console) log('the same spans as a tree:');
    exporter.print(log);
    return result;
  };
  try {
    const aiSdk = await section(
      'through the AI SDK, its telemetry on (@ai-sdk/otel):',
      runThroughAiSdk,
    );
    const aiSdkSpans = [...exporter.spans];
    exporter.spans.length = 0;

    const openai = await section(
      'through the OpenAI SDK (recourse runs the loop: a span per model request too):',
      runThroughOpenAI,
    );
    return { outcomes: [aiSdk, openai], aiSdkSpans, openaiSpans: [...exporter.spans] };
  } finally {
    await provider.shutdown();
    trace.disable();
    context.disable();
  }
}

/** A read that fails once with a 503, then a refund whose response is lost. */
async function runThroughAiSdk(): Promise<Outcome> {
  const payments = createPaymentProvider({ loseResponses: 1 });
  const { model, close } = createExampleModel([
    toolCall('get_payment', { paymentId: 'p-42' }),
    toolCall('refund_payment', { paymentId: 'p-42', amount: 100 }),
    text('Refunded p-42 once (100).'),
  ]);
  let lookups = 0;
  const recovery = createAiSdkRecovery({
    runId: 'run-otel-1',
    policies: {
      get_payment: { sideEffects: false },
      refund_payment: {
        sideEffects: true,
        reconcile: async (_input, { idempotencyKey }) =>
          (await payments.findByKey(idempotencyKey))
            ? { happened: true, result: { status: 'refunded' } }
            : { happened: false },
      },
    },
  });
  try {
    await generateText({
      model,
      prompt: 'Refund payment p-42 for 100 if it was captured.',
      tools: recovery.tools({
        get_payment: tool({
          description: 'Read a payment',
          inputSchema: z.object({ paymentId: z.string() }),
          execute: async ({ paymentId }) => {
            if (++lookups === 1) throw httpError(503, 'Service Unavailable');
            return { paymentId, status: 'captured', amount: 100 };
          },
        }),
        refund_payment: tool({
          description: 'Refund a payment',
          inputSchema: z.object({ paymentId: z.string(), amount: z.number() }),
          execute: ({ paymentId, amount }) => payments.refund(paymentId, amount),
        }),
      }),
      stopWhen: [isStepCount(6), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
      // The AI SDK's own spans, for this call; `registerTelemetry(new OpenTelemetry())`
      // from `ai` turns them on for every call instead.
      telemetry: { integrations: [new OpenTelemetry()], recordInputs: false, recordOutputs: false },
    });
    return recovery.outcome();
  } finally {
    close();
  }
}

/** The model endpoint answers 503 once; the loop reads a payment, then answers. */
async function runThroughOpenAI(): Promise<Outcome> {
  const { client, model, close } = createExampleClient([
    scriptedHttpError(503),
    toolCall('get_payment', { paymentId: 'p-42' }),
    text('Payment p-42 is captured.'),
  ]);
  const recovery = createOpenAIRecovery({
    runId: 'run-otel-2',
    defaultPolicy: { sideEffects: false },
  });
  const tools = recovery.tools({
    get_payment: {
      description: 'Read a payment',
      inputSchema: z.object({ paymentId: z.string() }),
      execute: ({ paymentId }) => ({ paymentId, status: 'captured', amount: 100 }),
    },
  });
  try {
    // The application's own agent span: recourse's spans nest under the active one.
    return await trace
      .getTracer('refund-desk')
      .startActiveSpan('invoke_agent refund-desk', async (agent) => {
        try {
          const result = await recovery.runResponses(client, {
            model,
            input: 'Is payment p-42 captured?',
            tools,
            maxSteps: 4,
          });
          return result.outcome;
        } finally {
          agent.end();
        }
      });
  } finally {
    close();
  }
}
