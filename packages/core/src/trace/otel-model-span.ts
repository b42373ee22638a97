import type { ModelSpan } from '../runtime/telemetry.js';
import type { Classification, Decision, FailureClass } from '../types.js';
import { type Attributes, type Histogram, type Span, statusError } from './otel-api.js';

/**
 * A model request's inference span (GenAI conventions: `{operation} {model}`, kind
 * CLIENT) and its `gen_ai.client.operation.duration` measurement; either may be absent.
 * One span covers the request's retries; each attempt runs in its context, so an
 * instrumented HTTP client's spans nest under it.
 */
export class OtelModelSpan implements ModelSpan {
  readonly #span: Span | undefined;
  readonly #inSpan: unknown;
  readonly #run: <T>(context: unknown, fn: () => T) => T;
  readonly #durations: Histogram | undefined;
  /** The request's low-cardinality attributes, shared by the span and the metric. */
  readonly #request: Attributes;
  readonly #started = performance.now();
  #attempts = 0;
  #firstFailure: FailureClass | undefined;

  constructor(
    span: Span | undefined,
    inSpan: unknown,
    run: <T>(context: unknown, fn: () => T) => T,
    durations: Histogram | undefined,
    request: Attributes,
  ) {
    this.#span = span;
    this.#inSpan = inSpan;
    this.#run = run;
    this.#durations = durations;
    this.#request = request;
  }

  run<T>(fn: () => T): T {
    this.#attempts++;
    return this.#span ? this.#run(this.#inSpan, fn) : fn();
  }

  retry(attempt: number, delayMs: number, classification: Classification): void {
    this.#firstFailure ??= classification.failureClass;
    this.#span?.addEvent('recourse.retry', {
      'recourse.attempt': attempt,
      'recourse.retry.delay_ms': delayMs,
      'error.type': classification.code,
    });
  }

  abort(): void {
    this.#span?.setStatus({ code: statusError, message: 'aborted by the caller' });
    this.#finish('ABORTED');
  }

  end(failure?: { classification: Classification; decision: Decision } | undefined): void {
    const span = this.#span;
    if (span?.isRecording()) {
      if (failure) {
        span.setStatus({ code: statusError, message: failure.decision.reason });
        span.setAttribute('recourse.failure_class', failure.classification.failureClass);
        span.setAttribute('recourse.recovery.action', failure.decision.action);
        span.setAttribute('recourse.decision.code', failure.decision.code);
      } else if (this.#firstFailure) {
        span.setAttribute('recourse.failure_class', this.#firstFailure);
        span.setAttribute('recourse.recovery.action', 'RETRY');
      }
    }
    this.#finish(failure?.classification.code);
  }

  #finish(errorType: string | undefined): void {
    const span = this.#span;
    span?.setAttribute('recourse.attempts', this.#attempts);
    if (errorType) span?.setAttribute('error.type', errorType);
    span?.end();
    if (!this.#durations) return;
    const attributes = errorType ? { ...this.#request, 'error.type': errorType } : this.#request;
    this.#durations.record((performance.now() - this.#started) / 1000, attributes);
  }
}
