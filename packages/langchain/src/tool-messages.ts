import { type AnswerText, type RecoveryContract, toFailureResult } from '@recourse/core/adapter';
import { ToolMessage } from 'langchain';

interface CallIdentity {
  toolName: string;
  toolCallId: string;
}

/**
 * A call's answer as LangChain carries it: the text the model reads (a value as JSON, a
 * failure as the recovery contract, status "error"). A failure's `artifact`, which the
 * model never sees, holds the contract and the original error for the application
 * (`toolCallFailureOf(message.artifact)`).
 */
export function answerMessage({ text, result }: AnswerText, call: CallIdentity): ToolMessage {
  return new ToolMessage({
    content: text,
    tool_call_id: call.toolCallId,
    name: call.toolName,
    status: result.ok ? 'success' : 'error',
    ...(result.ok ? {} : { artifact: toFailureResult(result.contract, result.error) }),
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
