import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

type Log = (line: string) => void;
type ExportCallback = Parameters<SpanExporter['export']>[1];

const statusError = 2;
const scopes: Record<string, string> = { '@recourse/core': 'recourse', gen_ai: 'ai-sdk' };

/**
 * An OpenTelemetry SDK exporter that keeps the finished spans and prints them as a tree,
 * one short line per span (the SDK's ConsoleSpanExporter prints a multi-line object per
 * span). What reaches a real backend (OTLP, Jaeger, Honeycomb) is the same spans.
 */
export class SpanTreeExporter implements SpanExporter {
  readonly spans: ReadableSpan[] = [];

  export(spans: ReadableSpan[], done: ExportCallback): void {
    this.spans.push(...spans);
    done({ code: 0 }); // ExportResultCode.SUCCESS
  }

  async shutdown(): Promise<void> {}

  /** Prints every trace, children under their parent in start order. */
  print(log: Log): void {
    const ids = new Set(this.spans.map((span) => span.spanContext().spanId));
    const roots = this.spans.filter((span) => !ids.has(span.parentSpanContext?.spanId ?? ''));
    const visit = (span: ReadableSpan, depth: number) => {
      log(`${'  '.repeat(depth)}${describeSpan(span)}`);
      const id = span.spanContext().spanId;
      for (const child of byStart(this.spans.filter((s) => s.parentSpanContext?.spanId === id)))
        visit(child, depth + 1);
    };
    for (const root of byStart(roots)) visit(root, 0);
  }
}

function byStart(spans: ReadableSpan[]): ReadableSpan[] {
  return [...spans].sort((a, b) => milliseconds(a.startTime) - milliseconds(b.startTime));
}

function milliseconds([seconds, nanos]: [number, number]): number {
  return seconds * 1000 + nanos / 1e6;
}

/** `name (scope) 12 ms · key attributes · retries · status`. */
export function describeSpan(span: ReadableSpan): string {
  const a = span.attributes;
  const parts = [
    `${span.name} (${scopes[span.instrumentationScope.name] ?? span.instrumentationScope.name})`,
    `${Math.round(milliseconds(span.duration))} ms`,
  ];
  if (a['recourse.attempts'] !== undefined) parts.push(`attempts ${a['recourse.attempts']}`);
  if (a['recourse.failure_class'])
    parts.push(`${a['recourse.failure_class']} → ${a['recourse.recovery.action']}`);
  const key = a['recourse.idempotency_key'];
  if (typeof key === 'string') parts.push(`key ${key.length > 36 ? `${key.slice(0, 35)}…` : key}`);
  for (const event of span.events.filter((e) => e.name === 'recourse.retry')) {
    const cause = event.attributes?.['error.type'];
    parts.push(
      `retry after ${event.attributes?.['recourse.retry.delay_ms']} ms${cause ? ` (${cause})` : ''}`,
    );
  }
  if (span.status.code === statusError) parts.push(`ERROR ${a['error.type'] ?? ''}`.trim());
  return parts.join(' · ');
}
