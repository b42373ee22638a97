import type { CompensationReport, Outcome } from '@recourse/core';
import {
  createAdapterRuntime,
  InvalidOptionsError,
  optionChecks,
  policyFromAnnotations,
  type RecoveryOptions,
  type RecoveryRuntime,
  type ToolPolicy,
  trackWrappedTools,
  usableTools,
  validateRecoveryOptions,
} from '@recourse/core/adapter';
import type { PrepareStepFunction, StopCondition } from 'ai';
import { createRecentIds } from './recent-ids.js';
import { createSdkFailureReporter, type StepLike } from './report-sdk-failures.js';
import { createGuidanceStep, type PrepareStepInput } from './step-guidance.js';
import { createEscalation } from './tool-approval.js';
import { createToolApproval, type ToolApprovalOptions } from './tool-approval-function.js';
import { type NeedsApproval, withEscalation } from './tool-approval-tool.js';
import { type FailureMode, wrapTool } from './wrap-tool.js';

export interface AiSdkRecoveryOptions extends RecoveryOptions {
  /**
   * How a failed call reaches the model. 'result' (default): the recovery contract is the
   * tool's result, so the model reads plain JSON and `isToolCallFailure(output)` finds it
   * in `step.content`. 'throw': a `ToolCallFailedError` (a `tool-error` part); the SDK then
   * sends the model `{"error": "<the contract as text>"}`.
   */
  failureMode?: FailureMode | undefined;
  /**
   * What a call blocked by a denial or a scope rule gets. 'refuse' (default): a BLOCKED
   * contract. 'approval' (ai@6, ai@7): an approval request to an operator; approving it
   * grants the run that resource (and what lies below it) before the call runs. Needs
   * `onDenial: 'continue'` for denials (with 'stop' the run is over) and a `resource`
   * function on the tool (without one a call touches everything: never grantable).
   */
  escalation?: 'refuse' | 'approval' | undefined;
  /**
   * A one-line console warning when `tools()` wraps no tool for a policy's name (a typo
   * there would silently turn a write into a tool without its policy). Default true; the
   * `policy.unused` event is emitted either way. Checked right after the `tools()` calls of
   * the current job (a microtask later), once per policy.
   */
  warn?: boolean | undefined;
}

/** The input and output a tool's `execute` works with, from the tool itself. */
type ToolInput<T> = T extends {
  execute?: ((input: infer I, ...rest: never[]) => unknown) | undefined;
}
  ? I
  : unknown;
type ToolOutput<T> = T extends { execute?: ((...args: never[]) => infer O) | undefined }
  ? O extends AsyncIterable<infer Item>
    ? Item
    : Awaited<O>
  : unknown;

/** Policies for a toolset, each typed by its tool. */
export type ToolPolicies<T> = { [K in keyof T]?: ToolPolicy<ToolInput<T[K]>, ToolOutput<T[K]>> };

/** What `createRecovery` returns: hand each piece to `generateText`, `streamText` or an agent. */
export interface AiSdkRecovery {
  /**
   * The same tools, same keys and types, each `execute` running through recourse.
   * `policies` declares their policies here, where each callback gets the tool's own input
   * and output types (over `createRecovery({ policies })`, field by field).
   */
  tools<T extends Record<string, unknown>>(toolset: T, policies?: ToolPolicies<T>): T;
  /** Ends the loop once the run is terminal (BLOCKED, poison, reconcile by hand, ...). */
  // biome-ignore lint/suspicious/noExplicitAny: assignable to every toolset's StopCondition
  stopWhen: StopCondition<any>;
  /** Injects recovery guidance for the next step and removes tools that can no longer run. */
  // biome-ignore lint/suspicious/noExplicitAny: assignable to every toolset's PrepareStepFunction
  prepareStep: PrepareStepFunction<any>;
  /**
   * ai@7: pass as `generateText({ toolApproval: recovery.toolApproval })` for approval
   * requests whose `reason` names the closed resources. Tools' own `needsApproval` still
   * applies to other calls. Without it, escalation works through `needsApproval` (no reason).
   */
  // biome-ignore lint/suspicious/noExplicitAny: assignable to every toolset's ToolApprovalConfiguration
  toolApproval: (options: ToolApprovalOptions & Record<string, any>) => Promise<any>;
  outcome(): Outcome;
  /** Undoes the run's completed writes that have a `compensate`, newest first, each at most once. */
  compensate(): Promise<CompensationReport>;
  /**
   * `generateText` / `streamText` threw (the model is down once the SDK's retries are spent):
   * pass the error here and the run ends FAILED with it classified, `autoCompensate` undoes
   * the completed writes, and the outcome comes back. Without it, the outcome cannot know.
   */
  modelFailed(error: unknown): Promise<Outcome>;
  /**
   * The run is over: stops watching the ledger for its facts (see `RecoveryRuntime.close`).
   * Optional: a recovery that is dropped lets go when it is garbage collected.
   */
  close(): void;
  /** The SDK-independent engine, for events, the ledger and lower-level use. */
  readonly runtime: RecoveryRuntime;
}

/**
 * The recovery layer for a Vercel AI SDK agent (ai@5, ai@6, ai@7). Options are checked
 * here: a bad field throws `InvalidOptionsError` naming it.
 */
export function createRecovery(options: AiSdkRecoveryOptions): AiSdkRecovery {
  validateRecoveryOptions(options, {
    failureMode: optionChecks.oneOf('result', 'throw'),
    escalation: optionChecks.oneOf('refuse', 'approval'),
    warn: optionChecks.bool,
  });
  const {
    failureMode = 'result',
    escalation: escalationMode = 'refuse',
    warn = true,
    ...core
  } = options;
  const runtime = createAdapterRuntime(core as RecoveryOptions);
  const handled = createRecentIds();
  const wrappedTools = trackWrappedTools(runtime, { warn });
  const reportSdkFailures = createSdkFailureReporter(runtime, handled);
  const guidanceStep = createGuidanceStep();
  const escalation = escalationMode === 'approval' ? createEscalation(runtime) : undefined;
  const ownApprovalRules = new Map<string, NeedsApproval>();

  const tools = <T extends Record<string, unknown>>(toolset: T, policies?: ToolPolicies<T>): T => {
    const wrapped: Record<string, unknown> = {};
    for (const [name, policy] of Object.entries(policies ?? {})) {
      if (!Object.hasOwn(toolset, name)) {
        throw new InvalidOptionsError(
          `tools.${name}`,
          'a policy for a tool that is not in this toolset',
        );
      }
      if (policy !== undefined) runtime.declareTool(name, policy as ToolPolicy, 'own');
    }
    for (const [name, tool] of Object.entries(toolset)) {
      const fromAnnotations = policyFromAnnotations(tool);
      if (fromAnnotations) runtime.declareTool(name, fromAnnotations);
      const own = (tool as { needsApproval?: NeedsApproval } | null)?.needsApproval;
      if (own !== undefined) ownApprovalRules.set(name, own);
      const recovered = wrapTool(tool, {
        runtime,
        toolName: name,
        onHandled: (id) => handled.add(id),
        failureMode,
      });
      wrapped[name] = escalation ? withEscalation(recovered, name, escalation) : recovered;
    }
    wrappedTools.add(Object.keys(toolset));
    return wrapped as T;
  };

  const stopWhen = async ({ steps }: { steps: readonly StepLike[] }) => {
    await reportSdkFailures(steps);
    return runtime.isStopped();
  };

  const prepareStep = async (input: PrepareStepInput & { steps?: readonly StepLike[] }) => {
    await reportSdkFailures(input.steps);
    await escalation?.settleDeclined(input.messages);
    const names = [...wrappedTools.names];
    const usable = usableTools(runtime, names, (name) => name);
    const result = guidanceStep(input, runtime.takeGuidance());
    if (usable.length < names.length) result.activeTools = usable;
    return result;
  };

  return {
    tools,
    stopWhen: stopWhen as AiSdkRecovery['stopWhen'],
    prepareStep: prepareStep as AiSdkRecovery['prepareStep'],
    toolApproval: createToolApproval(escalation, ownApprovalRules),
    outcome: () => runtime.outcome(),
    compensate: () => runtime.compensate(),
    modelFailed: (error) => runtime.modelFailed(error),
    close: () => runtime.close(),
    runtime,
  };
}
