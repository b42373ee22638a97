import {
  isMcpErrorResult,
  isThenable,
  jsonError,
  McpToolError,
  mcpErrorText,
  modelValue,
  type RecoveryRuntime,
  type ToolCallFailure,
  toFailureResult,
} from '@recourse/core/adapter';
import { withFailurePassthrough } from './failure-model-output.js';
import { isAsyncGeneratorFunction, streamToolCall } from './stream-tool-call.js';
import { ToolCallFailedError } from './tool-call-failed-error.js';

/** The part of the AI SDK's execute options the wrapper reads (ai@5, ai@6 and ai@7). */
interface ExecuteOptions {
  toolCallId?: string | undefined;
  abortSignal?: AbortSignal | undefined;
  /** The step's input messages: one array per step, handed to every call of that step. */
  messages?: unknown;
}

// On every wrapped copy: which tool it wraps, for which recovery and under which name.
const wrappedMarker = Symbol.for('recourse.ai-sdk.wrapped-tool');

interface WrappedMark {
  original: unknown;
  runtime: RecoveryRuntime;
  toolName: string;
}

export interface WrapToolOptions {
  runtime: RecoveryRuntime;
  toolName: string;
  /** Called with each tool-call id the wrapper sees, so SDK-level failures can be told apart. */
  onHandled: (toolCallId: string) => void;
  /** 'result' (default): the contract is the tool's result. 'throw': a ToolCallFailedError. */
  failureMode: FailureMode;
}

export type FailureMode = 'result' | 'throw';

/**
 * A copy of `tool` whose `execute` runs through the recovery runtime. The copy keeps the
 * prototype and every property descriptor (some fields are non-enumerable), so the SDK
 * sees the same tool; `execute` receives the SDK's options object as it is. A tool
 * without `execute` is returned as is.
 *
 * A streaming tool (`async *execute`) stays one: the wrapper is an async generator too,
 * and each value the tool yields reaches the SDK as it is yielded (its preliminary
 * results), while the runtime still sees one call whose result is the last value.
 *
 * Wrapping is idempotent: a tool this recovery already wrapped under this name is returned
 * as is, and a tool wrapped elsewhere is wrapped from its original. Two layers would claim
 * the same key twice (the inner one waits for the outer, then reports it in flight) and
 * the outer one would store the inner one's failure contract as the write's result.
 */
export function wrapTool<T>(tool: T, options: WrapToolOptions): T {
  if (typeof tool !== 'object' || tool === null) return tool;
  const mark = (tool as { [wrappedMarker]?: WrappedMark })[wrappedMarker];
  if (mark) {
    if (mark.runtime === options.runtime && mark.toolName === options.toolName) return tool;
    return wrapTool(mark.original as T, options);
  }
  const original = (tool as { execute?: unknown }).execute;
  if (typeof original !== 'function') return tool;
  const { runtime, toolName, onHandled, failureMode } = options;
  // A tool's own toModelOutput decides what the model reads; without one the SDK sends JSON.
  const sendsJson = typeof (tool as { toModelOutput?: unknown }).toModelOutput !== 'function';

  /**
   * One call through the runtime; `forward` receives the values of the current attempt.
   * A plain `then`, not an async function: the common path has no async frame of its own.
   */
  const run = (
    input: unknown,
    executeOptions: ExecuteOptions,
    forward?: (value: unknown) => void,
  ): Promise<unknown> => {
    const toolCallId = executeOptions?.toolCallId ?? '';
    onHandled(toolCallId);
    let attempts = 0;
    const executing = runtime.execute({
      toolName,
      toolCallId,
      input,
      signal: executeOptions?.abortSignal,
      turn: turnOf(executeOptions),
      execute: (i, signal) => {
        const attempt = ++attempts;
        // With a per-attempt deadline the tool gets a signal that also aborts at it.
        const options =
          signal === executeOptions?.abortSignal
            ? executeOptions
            : { ...executeOptions, abortSignal: signal };
        const produced = original.call(tool, i, options);
        // An attempt the runtime gave up on must not speak over the one that replaced it.
        const onValue = (item: unknown) => {
          if (attempt === attempts) forward?.(item);
        };
        // No extra async frame on the common path: a promise of a plain value is read once.
        return isThenable(produced)
          ? produced.then((value) => finish(value, onValue))
          : finish(produced, onValue);
      },
    });
    return executing.then((result) => {
      if (!result.ok) return failed(result);
      const value = modelValue(result);
      const unsendable = sendsJson ? jsonError(value) : undefined;
      if (unsendable === undefined) return value;
      // The SDK would throw out of the loop when it serialises it: the model is told instead.
      return runtime
        .recordUnsendableResult({ toolName, toolCallId, input, error: unsendable })
        .then(failed);
    });
  };

  /** A failed call as the SDK gets it: the contract as the result, or thrown. */
  const failed = (failure: ToolCallFailure): unknown => {
    if (failureMode === 'result') return toFailureResult(failure.contract, failure.error);
    throw new ToolCallFailedError(failure.contract, { cause: failure.error });
  };

  const execute = isAsyncGeneratorFunction(original)
    ? async function* (input: unknown, executeOptions: ExecuteOptions) {
        yield* streamToolCall((forward) => run(input, executeOptions, forward));
      }
    : (input: unknown, executeOptions: ExecuteOptions) => run(input, executeOptions);
  // Replaced in the descriptor map, so a non-configurable `execute` is no obstacle.
  const descriptors: PropertyDescriptorMap = Object.getOwnPropertyDescriptors(tool);
  descriptors.execute = {
    value: execute,
    writable: true,
    enumerable: descriptors.execute?.enumerable ?? true,
    configurable: true,
  };
  const ownOutput = descriptors.toModelOutput?.value;
  if (typeof ownOutput === 'function') {
    descriptors.toModelOutput = {
      value: withFailurePassthrough(ownOutput, tool),
      writable: true,
      enumerable: descriptors.toModelOutput?.enumerable ?? true,
      configurable: true,
    };
  }
  descriptors[wrappedMarker] = {
    value: { original: tool, runtime, toolName } satisfies WrappedMark,
  };
  return Object.create(Object.getPrototypeOf(tool), descriptors) as T;
}

/**
 * The turn (one model response) a call belongs to. ai@5, ai@6 and ai@7 build one
 * `messages` array per step and hand that same array to every call of the step, and start
 * the step's calls in the order of the response. Without it (execute called by hand), the
 * call waits for nothing.
 */
function turnOf(executeOptions: ExecuteOptions | undefined): object | undefined {
  const messages = executeOptions?.messages;
  return typeof messages === 'object' && messages !== null ? messages : undefined;
}

/**
 * The tool's result. An async iterable is read to its end inside the call, so a failure
 * mid-stream is classified like any other and the last value is the call's result; each
 * value goes to `onValue` as it arrives. (A plain function that returns an iterable is
 * only found out here, after the SDK has taken the call as non-streaming: it gets the
 * last value alone.) An MCP `isError` result is thrown, so that it is classified.
 */
function finish(value: unknown, onValue: (item: unknown) => void): unknown {
  if (isAsyncIterable(value)) return drain(value, onValue).then(checked);
  return checked(value);
}

async function drain(
  values: AsyncIterable<unknown>,
  onValue: (item: unknown) => void,
): Promise<unknown> {
  let last: unknown;
  for await (const item of values) {
    last = item;
    onValue(item);
  }
  return last;
}

function checked(value: unknown): unknown {
  if (isMcpErrorResult(value)) throw new McpToolError(mcpErrorText(value), value);
  return value;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
  );
}
