import {
  createRecoveryRuntime,
  InvalidOptionsError,
  type Outcome,
  type RecoveryOptions,
  type RecoveryRuntime,
  type ToolPolicy,
  validateRecoveryOptions,
} from '@recourse/core';
import type { PrepareStepFunction, StopCondition } from 'ai';
import { policyFromAnnotations } from './mcp-result.js';
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
}

/** What `createRecovery` returns: hand each piece to `generateText`, `streamText` or an agent. */
export interface AiSdkRecovery {
  /** The same tools, same keys and types, each `execute` running through recourse. */
  tools<T extends Record<string, unknown>>(toolset: T): T;
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
  /** The SDK-independent engine, for events, the ledger and lower-level use. */
  readonly runtime: RecoveryRuntime;
}

/**
 * The recovery layer for a Vercel AI SDK agent (ai@5, ai@6, ai@7). Options are checked
 * here: a bad field throws `InvalidOptionsError` naming it.
 */
export function createRecovery(options: AiSdkRecoveryOptions): AiSdkRecovery {
  validateRecoveryOptions(options);
  const failureMode = options.failureMode ?? 'result';
  if (failureMode !== 'result' && failureMode !== 'throw') {
    throw new InvalidOptionsError('failureMode', "must be 'result' or 'throw'");
  }
  const escalationMode = options.escalation ?? 'refuse';
  if (escalationMode !== 'refuse' && escalationMode !== 'approval') {
    throw new InvalidOptionsError('escalation', "must be 'refuse' or 'approval'");
  }
  // The runtime reads policies by reference, so defaults from MCP annotations can be
  // added when the tools are wrapped, after construction.
  const policies: Record<string, ToolPolicy> = { ...(options.policies ?? {}) };
  const userPolicies = new Set(Object.keys(policies));
  const runtime = createRecoveryRuntime({ ...options, policies });
  const handled = new Set<string>();
  const toolNames = new Set<string>();
  const reportSdkFailures = createSdkFailureReporter(runtime, handled);
  const guidanceStep = createGuidanceStep();
  const escalation = escalationMode === 'approval' ? createEscalation(runtime) : undefined;
  const ownApprovalRules = new Map<string, NeedsApproval>();

  const tools = <T extends Record<string, unknown>>(toolset: T): T => {
    const wrapped: Record<string, unknown> = {};
    for (const [name, tool] of Object.entries(toolset)) {
      toolNames.add(name);
      if (!userPolicies.has(name)) {
        const fromAnnotations = policyFromAnnotations(tool);
        if (fromAnnotations) policies[name] = fromAnnotations;
      }
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
    return wrapped as T;
  };

  const stopWhen = async ({ steps }: { steps: readonly StepLike[] }) => {
    await reportSdkFailures(steps);
    return runtime.isStopped();
  };

  const prepareStep = async (input: PrepareStepInput & { steps?: readonly StepLike[] }) => {
    await reportSdkFailures(input.steps);
    await escalation?.settleDeclined(input.messages);
    const names = [...toolNames];
    const unusable = new Set(runtime.unusableTools(names));
    const result = guidanceStep(input, runtime.takeGuidance());
    if (unusable.size > 0) result.activeTools = names.filter((name) => !unusable.has(name));
    return result;
  };

  return {
    tools,
    stopWhen: stopWhen as AiSdkRecovery['stopWhen'],
    prepareStep: prepareStep as AiSdkRecovery['prepareStep'],
    toolApproval: createToolApproval(escalation, ownApprovalRules),
    outcome: () => runtime.outcome(),
    runtime,
  };
}
