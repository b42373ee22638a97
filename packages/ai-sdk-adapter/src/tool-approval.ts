import type { RecoveryRuntime } from '@recourse/core/adapter';

/** An operator's answer to an approval request, read from the model messages. */
export interface ApprovalAnswerPart {
  approvalId: string;
  toolCallId: string;
  toolName: string;
  input: unknown;
  approved: boolean;
  reason?: string | undefined;
}

type Part = Record<string, unknown>;

function partsOf(message: unknown, role: string): Part[] {
  if (typeof message !== 'object' || message === null) return [];
  const m = message as { role?: unknown; content?: unknown };
  if (m.role !== role || !Array.isArray(m.content)) return [];
  return m.content.filter((p): p is Part => typeof p === 'object' && p !== null);
}

/**
 * Every approval answer in `messages` (ai@6 and ai@7 model messages): a
 * `tool-approval-response` in a tool message, matched through its `tool-approval-request`
 * to the assistant's `tool-call`. Answers without a matching request are ignored.
 */
export function readApprovalAnswers(
  messages: readonly unknown[] | undefined,
): ApprovalAnswerPart[] {
  const calls = new Map<string, Part>();
  const requests = new Map<string, string>(); // approvalId → toolCallId
  for (const message of messages ?? []) {
    for (const part of partsOf(message, 'assistant')) {
      if (part.type === 'tool-call' && typeof part.toolCallId === 'string')
        calls.set(part.toolCallId, part);
      if (
        part.type === 'tool-approval-request' &&
        typeof part.approvalId === 'string' &&
        typeof part.toolCallId === 'string'
      )
        requests.set(part.approvalId, part.toolCallId);
    }
  }
  const answers: ApprovalAnswerPart[] = [];
  for (const message of messages ?? []) {
    for (const part of partsOf(message, 'tool')) {
      if (part.type !== 'tool-approval-response' || typeof part.approvalId !== 'string') continue;
      const toolCallId = requests.get(part.approvalId);
      const call = toolCallId === undefined ? undefined : calls.get(toolCallId);
      if (!call || typeof call.toolName !== 'string' || toolCallId === undefined) continue;
      answers.push({
        approvalId: part.approvalId,
        toolCallId,
        toolName: call.toolName,
        input: call.input,
        approved: part.approved === true,
        ...(typeof part.reason === 'string' ? { reason: part.reason } : {}),
      });
    }
  }
  return answers;
}

/** ai@7's approval status, as `toolApproval` functions return it. */
export type ApprovalStatus =
  | 'not-applicable'
  | 'user-approval'
  | { type: 'user-approval'; reason: string };

/**
 * The escalation side of the adapter: asks the runtime whether a call is blocked and
 * grantable, and turns the operator's answers in the messages into grants or refusals.
 */
export function createEscalation(runtime: RecoveryRuntime) {
  const settled = new Set<string>();

  const settle = async (answer: ApprovalAnswerPart) => {
    if (settled.has(answer.approvalId)) return;
    settled.add(answer.approvalId);
    await runtime.resolveApproval({
      toolName: answer.toolName,
      toolCallId: answer.toolCallId,
      input: answer.input,
      approved: answer.approved,
      decidedBy: `approval:${answer.approvalId}`,
      reason: answer.reason,
    });
  };

  return {
    /** Whether the call needs an operator: blocked now, or already answered (keep it approved). */
    async status(
      toolName: string,
      toolCallId: string,
      input: unknown,
      messages: readonly unknown[] | undefined,
    ): Promise<ApprovalStatus> {
      // On resume ai@6 and ai@7 ask again; "no approval needed" would turn the operator's
      // approval into a denial (ai@6), so an answered call keeps needing approval.
      if (readApprovalAnswers(messages).some((a) => a.toolCallId === toolCallId))
        return 'user-approval';
      const request = await runtime.requestApproval({ toolName, toolCallId, input });
      return request ? { type: 'user-approval', reason: request.message } : 'not-applicable';
    },
    /** Before an approved call runs: the operator's approval becomes a grant. */
    async beforeExecute(toolCallId: string, messages: readonly unknown[] | undefined) {
      for (const answer of readApprovalAnswers(messages))
        if (answer.toolCallId === toolCallId && answer.approved) await settle(answer);
    },
    /** Declined approvals never reach execute: they are read from the next step's messages. */
    async settleDeclined(messages: readonly unknown[] | undefined) {
      for (const answer of readApprovalAnswers(messages))
        if (!answer.approved) await settle(answer);
    },
  };
}

export type Escalation = ReturnType<typeof createEscalation>;
