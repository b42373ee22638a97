import type { ApprovalStatus, Escalation } from './tool-approval.js';
import { type NeedsApproval, ownNeedsApproval } from './tool-approval-tool.js';

/** The part of ai@7's `toolApproval` function options that recourse reads. */
export interface ToolApprovalOptions {
  toolCall: { toolName: string; toolCallId: string; input: unknown };
  messages?: readonly unknown[] | undefined;
}

/**
 * ai@7's generic `toolApproval` function: a blocked, grantable call becomes an approval
 * request whose reason names the closed resources and why. ai@7 ignores tools'
 * `needsApproval` when this function is given, so other calls fall back to the tool's own
 * rule here.
 */
export function createToolApproval(
  escalation: Escalation | undefined,
  ownRules: ReadonlyMap<string, NeedsApproval>,
) {
  return async ({ toolCall, messages }: ToolApprovalOptions): Promise<ApprovalStatus> => {
    const { toolName, toolCallId, input } = toolCall;
    if (escalation) {
      const status = await escalation.status(toolName, toolCallId, input, messages);
      if (status !== 'not-applicable') return status;
    }
    const own = await ownNeedsApproval(ownRules.get(toolName), input, { toolCallId, messages });
    return own ? 'user-approval' : 'not-applicable';
  };
}
