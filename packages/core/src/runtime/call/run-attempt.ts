import { AttemptTimeoutError } from '../../errors.js';
import { type CallContext, runInCallContext } from '../call-context.js';
import type { Call } from './call.js';

// Stops a deadline timer that is no longer needed; a reason, so abort() builds no DOMException.
const settled = new Error('attempt settled');

/**
 * Runs one attempt of the tool inside `callContext()`. With a `timeoutMs`, the tool gets a
 * signal that also aborts at the deadline, and the attempt is no longer awaited once the
 * deadline passed (a tool that ignores its signal cannot hang the run): it rejects with an
 * `AttemptTimeoutError` instead.
 */
export function runAttempt(call: Call): unknown {
  const context = attemptContext(call);
  const { request } = call;
  const timeoutMs = call.tool.timeoutMs;
  if (timeoutMs === undefined) {
    const execute = () => runInCallContext(context, request.execute, request.input, request.signal);
    return call.span ? call.span.run(execute) : execute();
  }
  return withDeadline(call, context, timeoutMs);
}

async function withDeadline(call: Call, context: CallContext, timeoutMs: number): Promise<unknown> {
  const { request } = call;
  const deadline = new AbortController();
  const timer = new AbortController();
  const signal = request.signal
    ? AbortSignal.any([request.signal, deadline.signal])
    : deadline.signal;
  const expired = call.run.clock.sleep(timeoutMs, timer.signal).then(
    () => {
      const error = new AttemptTimeoutError(call.tool.name, timeoutMs);
      deadline.abort(error);
      throw error;
    },
    () => undefined as never, // stopped: the attempt settled first
  );
  const execute = () => runInCallContext(context, request.execute, request.input, signal);
  const attempt = Promise.resolve().then(() => (call.span ? call.span.run(execute) : execute()));
  // Whatever the abandoned attempt does later must not become an unhandled rejection.
  attempt.catch(() => {});
  // The caller's abort ends the attempt at once too, even one that ignores its signal.
  const cancelled = request.signal
    ? new Promise<never>((_, reject) => {
        const signal = request.signal!;
        if (signal.aborted) reject(signal.reason);
        else
          signal.addEventListener('abort', () => reject(signal.reason), {
            once: true,
            signal: timer.signal,
          });
      })
    : undefined;
  cancelled?.catch(() => {});
  try {
    return await Promise.race(cancelled ? [attempt, expired, cancelled] : [attempt, expired]);
  } finally {
    timer.abort(settled);
  }
}

/**
 * The context of one attempt. `idempotencyKey` is a getter on the prototype, derived on
 * first read (a read tool that never asks never hashes its input); read it rather than
 * spreading the context.
 */
class AttemptContext implements CallContext {
  readonly runId: string;
  readonly toolName: string;
  readonly toolCallId: string;
  readonly attempt: number;
  readonly #call: Call;

  constructor(call: Call) {
    this.#call = call;
    this.runId = call.run.runId;
    this.toolName = call.tool.name;
    this.toolCallId = call.request.toolCallId;
    this.attempt = call.attempts;
  }

  get idempotencyKey(): string {
    return this.#call.key;
  }

  toJSON() {
    const { runId, toolName, toolCallId, attempt, idempotencyKey } = this;
    return { runId, toolName, toolCallId, attempt, idempotencyKey };
  }
}

function attemptContext(call: Call): CallContext {
  return new AttemptContext(call);
}
