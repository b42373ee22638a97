import type { CallEnding } from '../runtime/call/call-ending.js';
import type { CallSpan, Telemetry } from '../runtime/telemetry.js';

// The few parts of `@opentelemetry/api` used here, typed structurally so that the core's
// types never name an optional peer dependency.
interface Span {
  setAttribute(key: string, value: string | number | boolean): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  addEvent(name: string, attributes?: Record<string, string | number | boolean>): unknown;
  isRecording(): boolean;
  end(): void;
}
export interface TracerLike {
  startSpan(name: string, options?: unknown, context?: unknown): Span;
}
interface Histogram {
  record(value: number, attributes?: Record<string, string>): void;
}
export interface OtelApi {
  trace: {
    getTracer(name: string, version?: string): TracerLike;
    getTracerProvider(): unknown;
    setSpan(context: unknown, span: Span): unknown;
  };
  context: { active(): unknown; with<T>(context: unknown, fn: () => T): T };
  metrics?: {
    getMeterProvider(): unknown;
    getMeter(name: string): {
      createHistogram(name: string, options?: { description?: string; unit?: string }): Histogram;
    };
  };
  ProxyTracerProvider: new () => { getDelegate(): unknown };
}

const spanKindInternal = 0;
const statusError = 2;

/**
 * One span per wrapped call, after the GenAI semantic conventions (`execute_tool {name}`,
 * `gen_ai.operation.name`, `gen_ai.tool.name`, `gen_ai.tool.call.id`, `error.type`), plus
 * recourse's own attributes. Started in the active context, so it nests under the AI
 * SDK's `execute_tool` span when that telemetry is on; the tool runs inside it.
 *
 * With no tracer given and no SDK registered with the global provider, `start` answers
 * undefined at the cost of one provider lookup: the success path builds nothing.
 */
export function createOtelTelemetry(api: OtelApi, tracer?: TracerLike | undefined): Telemetry {
  const noop = new api.ProxyTracerProvider().getDelegate();
  const noopMeters = api.metrics?.getMeterProvider();
  let own = tracer;
  let histogram: Histogram | undefined;
  const recording = () => {
    if (own) return own;
    const provider = api.trace.getTracerProvider() as { getDelegate?: () => unknown };
    if ((provider.getDelegate?.() ?? provider) === noop) return undefined;
    own = api.trace.getTracer('@recourse/core');
    return own;
  };
  const durations = () => {
    if (histogram || !api.metrics || api.metrics.getMeterProvider() === noopMeters)
      return histogram;
    histogram = api.metrics
      .getMeter('@recourse/core')
      .createHistogram('gen_ai.execute_tool.duration', {
        description: 'Duration of wrapped tool calls, recoveries included',
        unit: 's',
      });
    return histogram;
  };

  return {
    start({ runId, toolName, toolCallId }) {
      const active = recording();
      if (!active) return undefined;
      const parent = api.context.active();
      const span = active.startSpan(
        `execute_tool ${toolName}`,
        {
          kind: spanKindInternal,
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': toolName,
            'gen_ai.tool.call.id': toolCallId,
            'gen_ai.tool.type': 'function',
            'recourse.run_id': runId,
          },
        },
        parent,
      );
      if (!span.isRecording()) return undefined;
      const inSpan = api.trace.setSpan(parent, span);
      const started = performance.now();
      const finish = (outcome: string) => {
        span.end();
        durations()?.record((performance.now() - started) / 1000, {
          'gen_ai.tool.name': toolName,
          'recourse.outcome': outcome,
        });
      };
      return {
        run: (fn) => api.context.with(inSpan, fn),
        retry(attempt, delayMs) {
          span.addEvent('recourse.retry', {
            'recourse.attempt': attempt,
            'recourse.retry.delay_ms': delayMs,
          });
        },
        abort() {
          span.setStatus({ code: statusError, message: 'aborted by the caller' });
          span.setAttribute('error.type', 'ABORTED');
          finish('aborted');
        },
        end(ending, facts) {
          span.setAttribute('recourse.attempts', facts.attempts);
          if (facts.key) span.setAttribute('recourse.idempotency_key', facts.key);
          if (ending.ok && facts.recovered) {
            span.setAttribute('recourse.failure_class', facts.recovered.failureClass);
            span.setAttribute('recourse.recovery.action', facts.recovered.action);
          }
          record(span, ending);
          finish(ending.ok ? (ending.degraded ? 'degraded' : 'ok') : ending.decision.action);
        },
      } satisfies CallSpan;
    },
  };
}

function record(span: Span, ending: CallEnding): void {
  if (ending.ok) {
    if (ending.deduplicated) span.setAttribute('recourse.deduplicated', true);
    if (ending.degraded) span.setAttribute('recourse.degraded', true);
    return;
  }
  const { classification, decision } = ending;
  span.setStatus({ code: statusError, message: decision.reason });
  span.setAttribute('error.type', classification.code);
  span.setAttribute('recourse.failure_class', classification.failureClass);
  span.setAttribute('recourse.recovery.action', decision.action);
  span.setAttribute('recourse.decision.code', decision.code);
}
