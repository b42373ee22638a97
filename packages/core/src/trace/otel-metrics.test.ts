import { metrics, trace } from '@opentelemetry/api';
import {
  type DataPoint,
  type Histogram,
  MeterProvider,
  MetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, drive, httpFailure } from '../../test-support/runtime-harness.js';
import { resolveTelemetry } from './resolve-telemetry.js';

/** Collects on demand: what an exporter would receive at its next interval. */
class InMemoryMetricReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

function registerMeter(): InMemoryMetricReader {
  const reader = new InMemoryMetricReader();
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
  return reader;
}

async function histogram(reader: MetricReader, name: string) {
  const { resourceMetrics, errors } = await reader.collect();
  expect(errors).toEqual([]);
  const metric = resourceMetrics.scopeMetrics
    .filter((scope) => scope.scope.name === '@recourse/core')
    .flatMap((scope) => scope.metrics)
    .find((candidate) => candidate.descriptor.name === name);
  return {
    descriptor: metric?.descriptor,
    points: (metric?.dataPoints ?? []) as DataPoint<Histogram>[],
  };
}

afterEach(() => {
  metrics.disable();
  trace.disable();
});

describe('gen_ai.execute_tool.duration', () => {
  it('a histogram in seconds, one point per call, by tool name and outcome; no tracer needed', async () => {
    const reader = registerMeter();
    const h = createHarness({
      policies: {
        lookup: { sideEffects: false },
        extract: { sideEffects: false },
      },
    });
    await h.run('lookup', { id: 1 }, () => 'ok');
    await h.run('lookup', { id: 2 }, () => 'ok');
    let calls = 0;
    await h.run('lookup', { id: 3 }, () => {
      if (++calls < 2) throw httpFailure(503);
      return 'ok';
    });
    await h.run('extract', { text: 'x' }, () => {
      throw httpFailure(422, 'field total is invalid');
    });

    const { descriptor, points } = await histogram(reader, 'gen_ai.execute_tool.duration');
    expect(descriptor).toMatchObject({ unit: 's' });
    const byAttributes = points.map((point) => ({
      attributes: point.attributes,
      count: point.value.count,
    }));
    expect(byAttributes).toEqual(
      expect.arrayContaining([
        {
          attributes: {
            'gen_ai.tool.name': 'lookup',
            'gen_ai.tool.type': 'function',
            'recourse.outcome': 'ok',
          },
          count: 2,
        },
        {
          attributes: {
            'gen_ai.tool.name': 'lookup',
            'gen_ai.tool.type': 'function',
            'recourse.outcome': 'recovered',
          },
          count: 1,
        },
        {
          attributes: {
            'gen_ai.tool.name': 'extract',
            'gen_ai.tool.type': 'function',
            'recourse.outcome': 'REPAIR',
            'error.type': 'INVALID_INPUT',
          },
          count: 1,
        },
      ]),
    );
    expect(points).toHaveLength(3);
    for (const point of points) expect(point.value.min).toBeGreaterThanOrEqual(0);
    // The conventions' bucket advice (seconds), not the SDK's millisecond defaults.
    expect(points[0]?.value.buckets.boundaries.slice(0, 3)).toEqual([0.01, 0.02, 0.04]);
  });

  it('with a tracer too: the same points, and the spans', async () => {
    const reader = registerMeter();
    const exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    );
    const h = createHarness({ policies: { lookup: { sideEffects: false } } });
    await h.run('lookup', {}, () => 'ok');
    const { points } = await histogram(reader, 'gen_ai.execute_tool.duration');
    expect(points.map((point) => point.value.count)).toEqual([1]);
    expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual(['execute_tool lookup']);
  });

  it('a meter provider registered after the run was created is used from its next call', async () => {
    const h = createHarness({ policies: { lookup: { sideEffects: false } } });
    await h.run('lookup', { id: 1 }, () => 'ok');
    const reader = registerMeter();
    await h.run('lookup', { id: 2 }, () => 'ok');
    const { points } = await histogram(reader, 'gen_ai.execute_tool.duration');
    expect(points.map((point) => point.value.count)).toEqual([1]);
  });
});

describe('gen_ai.client.operation.duration', () => {
  it('model requests by operation, provider and model; error.type when one failed', async () => {
    const reader = registerMeter();
    const h = createHarness();
    const gpt = { model: 'gpt-4o', provider: 'openai' };
    await h.runtime.callModel(async () => 'answer', undefined, gpt);
    let calls = 0;
    await drive(
      h.clock,
      h.runtime.callModel(
        async () => {
          if (++calls < 2) throw httpFailure(503);
          return 'answer';
        },
        undefined,
        gpt,
      ),
    );
    await h.runtime.callModel(
      async () => {
        throw httpFailure(401);
      },
      undefined,
      gpt,
    );
    const { descriptor, points } = await histogram(reader, 'gen_ai.client.operation.duration');
    expect(descriptor).toMatchObject({ unit: 's' });
    const request = {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o',
    };
    expect(points.map((point) => [point.attributes, point.value.count])).toEqual(
      expect.arrayContaining([
        [request, 2],
        [{ ...request, 'error.type': 'NOT_AUTHORIZED' }, 1],
      ]),
    );
    expect(points).toHaveLength(2);
  });
});

describe('whether anything records', () => {
  it('nothing registered: no call span at all; a meter provider alone: a measured one', () => {
    const start = () => resolveTelemetry(undefined)?.start('run-1', 'lookup', 'call_1');
    expect(start()).toBeUndefined();
    registerMeter();
    expect(start()).toBeDefined();
  });
});
