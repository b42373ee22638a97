import type { RunContext } from '@openai/agents';
import type { RecoveryRuntime } from '@recourse/core/adapter';

/**
 * `escalation: 'approval'`: a call recourse would refuse because its resource is closed (a
 * scope rule, an earlier denial) and that an operator may open becomes an approval request
 * through the SDK's own `needsApproval`: the run pauses with an interruption, and the
 * operator's answer (`state.approve` / `state.reject`) reaches recourse when the resumed
 * run gets to the call. Escalations are run facts in the ledger, so the answer may come in
 * another process that resumes the saved `RunState` with the same `runId` and ledger.
 */
export interface Escalation {
  /** True when recourse asks a person for this call (the request is recorded once). */
  needsApproval(toolName: string, input: unknown, callId: string | undefined): Promise<boolean>;
  /** Before an approved call runs: the operator's approval becomes the run's grant. */
  settle(
    toolName: string,
    runContext: RunContext<unknown>,
    input: unknown,
    callId: string,
  ): Promise<void>;
}

export function createEscalation(runtime: RecoveryRuntime): Escalation {
  return {
    async needsApproval(toolName, input, callId) {
      const request = await runtime.requestApproval({ toolName, toolCallId: callId ?? '', input });
      return request !== undefined;
    },
    async settle(toolName, runContext, input, callId) {
      // Only an approval the runner recorded for this very call; the runner never invokes
      // a rejected call, and recourse keeps its resource closed.
      if (runContext.isToolApproved({ toolName, callId }) !== true) return;
      await runtime.resolveApproval({
        toolName,
        toolCallId: callId,
        input,
        approved: true,
        decidedBy: `approval:${callId}`,
      });
    },
  };
}
