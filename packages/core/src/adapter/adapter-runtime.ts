import type { Recogniser } from '../classify/index.js';
import { contractText } from '../contract/recovery-contract.js';
import { modelValue, type ToolCallResult } from '../runtime/call/tool-call.js';
import { createRecoveryRuntime } from '../runtime/create-runtime.js';
import type { SdkFailure } from '../runtime/model/sdk-failure.js';
import type { RecoveryOptions } from '../runtime/options/recovery-options.js';
import type { RecoveryRuntime } from '../runtime/recovery-runtime.js';
import { modelText } from './json-checks.js';

export interface AdapterSetup {
  /**
   * Recognisers for the SDK's own errors (an unknown tool, arguments its schema refused):
   * consulted after the user's `recognisers`, before the built-in rules. An adapter
   * names its errors for what they are and says here what they mean, rather than
   * dressing them up as another SDK's errors.
   */
  recognisers?: readonly Recogniser[] | undefined;
}

/** The runtime an adapter drives: one per run, with the adapter's recognisers registered. */
export function createAdapterRuntime(
  options: RecoveryOptions,
  setup: AdapterSetup = {},
): RecoveryRuntime {
  const own = setup.recognisers ?? [];
  if (own.length === 0) return createRecoveryRuntime(options);
  return createRecoveryRuntime({
    ...options,
    recognisers: [...(options.recognisers ?? []), ...own],
  });
}

/** The names of the tools an adapter wrapped, and the report of policies naming none. */
export interface WrappedToolNames {
  /** Adds names; a microtask later, policies that name no wrapped tool are reported once. */
  add(names: Iterable<string>): void;
  /** Every name added so far, in the order first added. */
  readonly names: ReadonlySet<string>;
}

export interface WrappedToolNamesOptions {
  /** A one-line console warning per unused policy (the `policy.unused` event is emitted either way). */
  warn: boolean;
  /** How the adapter speaks of its tools in the warning: `wrapped` (default) or `defined`. */
  verb?: 'wrapped' | 'defined' | undefined;
}

/**
 * Tracks wrapped tools and reports policies that name none of them (a typo there would
 * silently turn a write into a tool without its policy). Checked once the current job is
 * done, so that toolsets wrapped in several calls (`{ ...tools(a), ...tools(b) }`) count
 * together; each such policy is reported once.
 */
export function trackWrappedTools(
  runtime: RecoveryRuntime,
  options: WrappedToolNamesOptions,
): WrappedToolNames {
  const names = new Set<string>();
  const reported = new Set<string>();
  const verb = options.verb ?? 'wrapped';
  let pending = false;
  const report = () => {
    pending = false;
    // Names already reported are passed as seen, so a later batch does not report them again.
    for (const unused of runtime.registerTools([...names, ...reported])) {
      reported.add(unused.tool);
      if (!options.warn) continue;
      const meant = unused.suggestion ? ` (did you mean "${unused.suggestion}"?)` : '';
      console.warn(
        `recourse: policies.${unused.tool} names no ${verb} tool${meant}; that policy applies to nothing. createRecovery({ warn: false }) silences this.`,
      );
    }
  };
  return {
    names,
    add(added) {
      for (const name of added) names.add(name);
      if (pending) return;
      pending = true;
      queueMicrotask(report);
    },
  };
}

/**
 * The tools the model may still be offered (a new array): a denial or a stop removes the
 * tools that can no longer run.
 */
export function usableTools<T>(
  runtime: RecoveryRuntime,
  tools: readonly T[],
  nameOf: (tool: T) => string,
): T[] {
  const unusable = runtime.unusableTools(tools.map(nameOf));
  if (unusable.length === 0) return [...tools];
  const removed = new Set(unusable);
  return tools.filter((tool) => !removed.has(nameOf(tool)));
}

/** A call's answer as the text the model is sent, and the result it stands for. */
export interface AnswerText {
  text: string;
  /** The call's result; a success whose value cannot be sent has become a failure. */
  result: ToolCallResult;
}

/**
 * The text the model is sent for a call's result, for SDKs whose tool results are text:
 * a value as JSON (see `modelText`), a failure as the recovery contract. A value that JSON
 * rejects is recorded as unsendable and the model reads that failure's contract instead.
 */
export async function answerText(
  runtime: RecoveryRuntime,
  call: Omit<SdkFailure, 'error'>,
  result: ToolCallResult,
): Promise<AnswerText> {
  if (!result.ok) return { text: contractText(result.contract), result };
  const text = modelText(modelValue(result));
  if (typeof text === 'string') return { text, result };
  const failure = await runtime.recordUnsendableResult({ ...call, error: text.error });
  return { text: contractText(failure.contract), result: failure };
}
