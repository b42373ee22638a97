// The few parts of `@opentelemetry/api` recourse uses, typed structurally so that the
// core's types never name an optional peer dependency.

export type AttributeValue = string | number | boolean;
export type Attributes = Record<string, AttributeValue>;

export interface Span {
  setAttribute(key: string, value: AttributeValue): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  addEvent(name: string, attributes?: Attributes): unknown;
  isRecording(): boolean;
  end(): void;
}

export interface TracerLike {
  startSpan(
    name: string,
    options?: { kind?: number; attributes?: Attributes },
    context?: unknown,
  ): Span;
}

export interface Histogram {
  record(value: number, attributes?: Attributes): void;
}

interface Meter {
  createHistogram(
    name: string,
    options?: {
      description?: string;
      unit?: string;
      advice?: { explicitBucketBoundaries?: number[] };
    },
  ): Histogram;
}

export interface OtelApi {
  trace: {
    getTracer(name: string, version?: string): TracerLike;
    getTracerProvider(): unknown;
    setSpan(context: unknown, span: Span): unknown;
    getSpan(context: unknown): Span | undefined;
  };
  context: { active(): unknown; with<T>(context: unknown, fn: () => T): T };
  metrics?: { getMeterProvider(): { getMeter(name: string): Meter } };
  createNoopMeter?: () => object;
  ProxyTracerProvider: new () => { getDelegate(): unknown };
}

export const spanKind = { internal: 0, client: 2 } as const;
export const statusError = 2;
export const scopeName = '@recourse/core';

/** The GenAI conventions' advice for duration histograms, in seconds. */
const durationBuckets = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];

export interface Instruments {
  /** The tracer when something records spans (a tracer given, or an SDK registered). */
  tracer(): TracerLike | undefined;
  /** `gen_ai.execute_tool.duration` when a meter provider is registered. */
  toolDurations(): Histogram | undefined;
  /** `gen_ai.client.operation.duration` when a meter provider is registered. */
  modelDurations(): Histogram | undefined;
}

// Where `@opentelemetry/api` 1.x (the peer range) keeps what was registered globally: a
// provider set with `setGlobalTracerProvider` or `setGlobalMeterProvider` is put there.
const registryKey = Symbol.for('opentelemetry.js.api.1');

/** The API's global registry, absent until something registers. */
function registered(): { trace?: unknown; metrics?: unknown } | undefined {
  return (globalThis as { [registryKey]?: { trace?: unknown; metrics?: unknown } })[registryKey];
}

/**
 * Finds out, on every call until the answer is yes, whether an SDK is registered. With
 * none registered at all, each question is one property read of the API's registry; with
 * the registry there, a provider lookup and a comparison. Nothing is allocated.
 * Instruments are created once, on the first call that finds a provider.
 */
export function createInstruments(api: OtelApi, given?: TracerLike | undefined): Instruments {
  const noopTracers = new api.ProxyTracerProvider().getDelegate();
  // The API's own no-op meter provider hands out instances of this one class.
  const NoopMeter = api.createNoopMeter?.().constructor as (new () => object) | undefined;
  let tracer = given;
  let tools: Histogram | undefined;
  let models: Histogram | undefined;

  let noopMeters: unknown;
  const meter = (): Meter | undefined => {
    if (registered()?.metrics === undefined) return undefined;
    const provider = api.metrics?.getMeterProvider();
    if (!provider || provider === noopMeters) return undefined;
    const found = provider.getMeter(scopeName);
    if (!NoopMeter || !(found instanceof NoopMeter)) return found;
    noopMeters = provider; // the API's own no-op provider: known from now on
    return undefined;
  };

  return {
    tracer() {
      if (tracer) return tracer;
      if (registered()?.trace === undefined) return undefined;
      const provider = api.trace.getTracerProvider() as { getDelegate?: () => unknown };
      if ((provider.getDelegate?.() ?? provider) === noopTracers) return undefined;
      tracer = api.trace.getTracer(scopeName);
      return tracer;
    },
    toolDurations() {
      tools ??= meter()?.createHistogram('gen_ai.execute_tool.duration', {
        description: 'Duration of wrapped tool calls, recoveries included',
        unit: 's',
        advice: { explicitBucketBoundaries: durationBuckets },
      });
      return tools;
    },
    modelDurations() {
      models ??= meter()?.createHistogram('gen_ai.client.operation.duration', {
        description: 'Duration of model requests made through recourse, retries included',
        unit: 's',
        advice: { explicitBucketBoundaries: durationBuckets },
      });
      return models;
    },
  };
}
