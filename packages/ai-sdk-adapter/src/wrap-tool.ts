import { modelValue, type RecoveryRuntime } from '@recourse/core';
import { withFailurePassthrough } from './failure-model-output.js';
import { isMcpErrorResult, McpToolError, mcpErrorText } from './mcp-result.js';
import { ToolCallFailedError } from './tool-call-failed-error.js';
import { toFailureResult } from './tool-failure-result.js';

/** The part of the AI SDK's execute options the wrapper reads (ai@5, ai@6 and ai@7). */
interface ExecuteOptions {
  toolCallId?: string | undefined;
  abortSignal?: AbortSignal | undefined;
}

type Execute = (input: unknown, options: ExecuteOptions) => unknown;

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
 * sees the same tool. A tool without `execute` is returned as is.
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
  const execute: Execute = async (input, executeOptions) => {
    const toolCallId = executeOptions?.toolCallId ?? '';
    onHandled(toolCallId);
    const result = await runtime.execute({
      toolName,
      toolCallId,
      input,
      signal: executeOptions?.abortSignal,
      execute: async (i, signal) => {
        // With a per-attempt deadline the tool gets a signal that also aborts at it.
        const options =
          signal === executeOptions?.abortSignal
            ? executeOptions
            : { ...executeOptions, abortSignal: signal };
        const value = await settle(original.call(tool, i, options));
        if (isMcpErrorResult(value)) throw new McpToolError(mcpErrorText(value), value);
        return value;
      },
    });
    if (result.ok) return modelValue(result);
    if (failureMode === 'result') return toFailureResult(result.contract, result.error);
    throw new ToolCallFailedError(result.contract, { cause: result.error });
  };
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
 * A streaming tool (`execute` returning an AsyncIterable) is drained inside the call, so
 * a failure mid-stream is classified like any other; the SDK receives the last value as
 * the final result (preliminary results are not forwarded).
 */
async function settle(value: unknown): Promise<unknown> {
  const resolved = await value;
  if (!isAsyncIterable(resolved)) return resolved;
  let last: unknown;
  for await (const item of resolved) last = item;
  return last;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
  );
}
