import type { CallEnding } from '../runtime/call/call.js';
import type { CallAbortFacts, CallSpan, CallSpanFacts } from '../runtime/telemetry.js';
import { type Attributes, type Histogram, type Span, statusError } from './otel-api.js';

/**
 * A wrapped call's span and its duration measurement, either of which may be absent
 * (a tracer without a meter provider, or the reverse). The tool runs in the span's
 * context, recorded or not, so a sampling decision reaches the tool's own spans.
 */
export class OtelCallSpan implements CallSpan {
  readonly #span: Span | undefined;
  readonly #inSpan: unknown;
  readonly #run: <T>(context: unknown, fn: () => T) => T;
  readonly #durations: Histogram | undefined;
  readonly #toolName: string;
  readonly #started = performance.now();

  constructor(
    span: Span | undefined,
    inSpan: unknown,
    run: <T>(context: unknown, fn: () => T) => T,
    durations: Histogram | undefined,
    toolName: string,
  ) {
    this.#span = span;
    this.#inSpan = inSpan;
    this.#run = run;
    this.#durations = durations;
    this.#toolName = toolName;
  }

  run<T>(fn: () => T): T {
    return this.#span ? this.#run(this.#inSpan, fn) : fn();
  }

  retry(attempt: number, delayMs: number): void {
    this.#span?.addEvent('recourse.retry', {
      'recourse.attempt': attempt,
      'recourse.retry.delay_ms': delayMs,
    });
  }

  abort(facts: CallAbortFacts): void {
    const span = this.#span;
    if (span?.isRecording()) {
      span.setStatus({ code: statusError, message: 'aborted by the caller' });
      span.setAttribute('error.type', 'ABORTED');
      span.setAttribute('recourse.attempts', facts.attempts);
      if (facts.key) span.setAttribute('recourse.idempotency_key', facts.key);
      if (facts.failure) {
        span.setAttribute('recourse.failure_class', facts.failure.failureClass);
        span.setAttribute('recourse.recovery.action', facts.failure.action);
      }
    }
    this.#finish('aborted', 'ABORTED');
  }

  end(ending: CallEnding, facts: CallSpanFacts): void {
    const span = this.#span;
    if (span?.isRecording()) record(span, ending, facts);
    if (ending.ok)
      this.#finish(ending.degraded ? 'degraded' : facts.recovered ? 'recovered' : 'ok');
    else this.#finish(ending.decision.action, ending.classification.code);
  }

  #finish(outcome: string, errorType?: string): void {
    this.#span?.end();
    if (!this.#durations) return;
    const attributes: Attributes = {
      'gen_ai.tool.name': this.#toolName,
      'gen_ai.tool.type': 'function',
      'recourse.outcome': outcome,
    };
    if (errorType) attributes['error.type'] = errorType;
    this.#durations.record((performance.now() - this.#started) / 1000, attributes);
  }
}

function record(span: Span, ending: CallEnding, facts: CallSpanFacts): void {
  span.setAttribute('recourse.attempts', facts.attempts);
  if (facts.key) span.setAttribute('recourse.idempotency_key', facts.key);
  if (ending.ok) {
    if (facts.recovered) {
      span.setAttribute('recourse.failure_class', facts.recovered.failureClass);
      span.setAttribute('recourse.recovery.action', facts.recovered.action);
    }
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
