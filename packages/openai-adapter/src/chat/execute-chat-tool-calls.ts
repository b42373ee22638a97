import type { RecoveryRuntime } from '@recourse/core/adapter';
import type {
  ChatCompletionMessageToolCall,
  ChatCompletionToolMessageParam,
} from 'openai/resources/chat/completions';
import type { AnyRecoveryToolSet } from '../define-tools.js';
import {
  type ExecuteToolCallsOptions,
  executeToolCalls,
  type TurnResult,
} from '../execute-tool-calls.js';
import type { PendingToolCall } from '../run-tool-call.js';

export interface ChatTurnResult extends TurnResult {
  /** One `{ role: 'tool', tool_call_id, content }` per call, in order: append them all. */
  messages: ChatCompletionToolMessageParam[];
}

/**
 * Executes the `tool_calls` of one assistant message through the policy. Every call id
 * gets its tool message, also when the run stops in the middle of the turn.
 */
export async function executeChatToolCalls(
  runtime: RecoveryRuntime,
  tools: AnyRecoveryToolSet,
  message: { tool_calls?: readonly ChatCompletionMessageToolCall[] | null | undefined },
  options: ExecuteToolCallsOptions = {},
): Promise<ChatTurnResult> {
  const calls = (message.tool_calls ?? []).map(toPendingCall);
  const turn = await executeToolCalls(runtime, tools, calls, options);
  return {
    ...turn,
    messages: turn.records.map((record) => ({
      role: 'tool',
      tool_call_id: record.callId,
      content: record.output,
    })),
  };
}

function toPendingCall(call: ChatCompletionMessageToolCall): PendingToolCall {
  if (call.type === 'function')
    return { callId: call.id, name: call.function.name, arguments: call.function.arguments };
  // A custom (free-text) tool is not one of ours: answered as an unknown tool.
  return { callId: call.id, name: call.custom.name, arguments: call.custom.input };
}
