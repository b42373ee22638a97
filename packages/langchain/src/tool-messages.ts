import type { RecoveryContract } from '@recourse/core';
import { ToolMessage } from 'langchain';

interface CallIdentity {
  toolName: string;
  toolCallId: string;
}

/** The failed call as the model reads it: the recovery contract as JSON, status "error". */
export function failureMessage(contract: RecoveryContract, call: CallIdentity): ToolMessage {
  return new ToolMessage({
    content: JSON.stringify(contract),
    tool_call_id: call.toolCallId,
    name: call.toolName,
    status: 'error',
  });
}

/**
 * A result the tool did not produce in this call (answered from the ledger, a reconcile
 * read, a fallback): LangChain's own rule for a tool's output, text as it is and anything
 * else as JSON.
 */
export function resultMessage(value: unknown, call: CallIdentity): ToolMessage {
  return new ToolMessage({
    content: typeof value === 'string' ? value : (JSON.stringify(value) ?? ''),
    tool_call_id: call.toolCallId,
    name: call.toolName,
    status: 'success',
  });
}

/**
 * The recovery contract a failed call's `ToolMessage` carries, or `undefined` for any other
 * message: for code that reads the agent's messages after the run.
 */
export function recoveryContractOf(message: unknown): RecoveryContract | undefined {
  if (!ToolMessage.isInstance(message) || message.status !== 'error') return undefined;
  if (typeof message.content !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(message.content);
    return typeof parsed === 'object' && parsed !== null && 'failure_class' in parsed
      ? (parsed as RecoveryContract)
      : undefined;
  } catch {
    return undefined;
  }
}
