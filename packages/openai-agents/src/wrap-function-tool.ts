import type { FunctionTool, RunContext } from '@openai/agents';
import {
  jsonError,
  modelValue,
  type RecoveryRuntime,
  toFailureResult,
} from '@recourse/core/adapter';
import type { Escalation } from './escalation.js';
import { isSdkDefaultErrorText, ToolFailureHiddenError } from './hidden-failure.js';

// biome-ignore lint/suspicious/noExplicitAny: any tool's context, schema and result
type AnyFunctionTool = FunctionTool<any, any, any>;
type Invoke = AnyFunctionTool['invoke'];
type Details = Parameters<Invoke>[2];

// On every wrapped copy: which tool it wraps, for which recovery.
const wrappedMarker = Symbol.for('recourse.openai-agents.wrapped-tool');

interface WrappedMark {
  original: AnyFunctionTool;
  runtime: RecoveryRuntime;
}

export interface WrapFunctionToolOptions {
  runtime: RecoveryRuntime;
  /** The tool answered with the SDK's default error sentence: its failures are hidden. */
  onHiddenFailure: (toolName: string) => void;
  /** With `escalation: 'approval'`: a blocked call asks a person through `needsApproval`. */
  escalation?: Escalation | undefined;
}

/**
 * A copy of a function tool whose `invoke` runs through the recovery runtime: same name,
 * description, schema, approval rule and guardrails. The copy never throws a tool failure
 * (with `errorFunction: null` the SDK would end the run): a failed call answers the model
 * with the recovery contract. The SDK's own `timeoutMs` would bound the whole recovered call,
 * retries included, so it moves to the policy's per-attempt `timeoutMs`.
 */
export function wrapFunctionTool(
  tool: AnyFunctionTool,
  options: WrapFunctionToolOptions,
): AnyFunctionTool {
  const mark = (tool as { [wrappedMarker]?: WrappedMark })[wrappedMarker];
  if (mark) {
    if (mark.runtime === options.runtime) return tool;
    return wrapFunctionTool(mark.original, options);
  }
  const { runtime, onHiddenFailure, escalation } = options;
  const toolName = tool.name;
  const original = tool.invoke;

  const invoke: Invoke = async (
    runContext: RunContext<unknown>,
    input: string,
    details?: Details,
  ) => {
    const parsed = parseArguments(input);
    const request = {
      toolName,
      toolCallId: details?.toolCall?.callId ?? '',
      input: parsed.ok ? parsed.value : input,
    };
    if (parsed.ok && escalation && request.toolCallId)
      await escalation.settle(toolName, runContext, parsed.value, request.toolCallId);
    const result = parsed.ok
      ? await runtime.execute({
          ...request,
          signal: details?.signal,
          // The runner gives the calls of one response one shared signal (its sibling
          // cancellation), started in the response's order: that signal is the turn.
          turn: details?.signal,
          execute: async (_input, signal) => {
            const output = await original.call(
              tool,
              runContext,
              input,
              withSignal(details, signal),
            );
            if (isSdkDefaultErrorText(output)) {
              onHiddenFailure(toolName);
              throw new ToolFailureHiddenError(toolName);
            }
            return output;
          },
        })
      : await runtime.recordFailure({ ...request, error: parsed.error });
    // A failure is the contract as the tool's output: the model reads its JSON, the
    // application finds the original error with `toolCallFailureOf(item.output)`.
    if (!result.ok) return toFailureResult(result.contract, result.error);
    const value = modelValue(result);
    // A value the SDK could not serialise would throw out of the run: the model is told
    // the call failed instead.
    const unsendable = jsonError(value);
    if (unsendable === undefined) return value;
    const failure = await runtime.recordUnsendableResult({ ...request, error: unsendable });
    return toFailureResult(failure.contract, failure.error);
  };

  const descriptors = Object.getOwnPropertyDescriptors(tool) as PropertyDescriptorMap;
  descriptors.invoke = { value: invoke, writable: true, enumerable: true, configurable: true };
  descriptors.timeoutMs = {
    value: undefined,
    writable: true,
    enumerable: true,
    configurable: true,
  };
  if (escalation) {
    const own = tool.needsApproval;
    const needsApproval: AnyFunctionTool['needsApproval'] = async (runContext, input, callId) =>
      // recourse first, so a blocked call is recorded as escalated whatever the own rule says
      (await escalation.needsApproval(toolName, input, callId)) ||
      (await own.call(tool, runContext, input, callId));
    descriptors.needsApproval = {
      value: needsApproval,
      writable: true,
      enumerable: true,
      configurable: true,
    };
  }
  descriptors[wrappedMarker] = {
    value: { original: tool, runtime } satisfies WrappedMark,
  };
  return Object.create(Object.getPrototypeOf(tool), descriptors) as AnyFunctionTool;
}

/** The model's arguments as the key sees them (the SDK parses them again for `execute`). */
function parseArguments(
  input: string,
): { ok: true; value: unknown } | { ok: false; error: unknown } {
  if (input === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(input) as unknown };
  } catch (error) {
    return { ok: false, error };
  }
}

/** The SDK's call details with this attempt's signal (a copy: the runner keeps its own). */
function withSignal(details: Details, signal: AbortSignal | undefined): Details {
  if (details === undefined || details.signal === signal) return details;
  const descriptors = Object.getOwnPropertyDescriptors(details) as PropertyDescriptorMap;
  descriptors.signal = { value: signal, writable: true, enumerable: true, configurable: true };
  return Object.create(Object.getPrototypeOf(details), descriptors) as Details;
}
