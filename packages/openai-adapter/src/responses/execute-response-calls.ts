import type { RecoveryRuntime } from '@recourse/core/adapter';
import type {
  ResponseFunctionToolCall,
  ResponseInputItem,
  ResponseOutputItem,
} from 'openai/resources/responses/responses';
import type { AnyRecoveryToolSet } from '../define-tools.js';
import {
  type ExecuteToolCallsOptions,
  executeToolCalls,
  type TurnResult,
} from '../execute-tool-calls.js';
import type { PendingToolCall, ToolCallRecord } from '../run-tool-call.js';

export interface ResponseTurnResult extends TurnResult {
  /** One `function_call_output` per `function_call`, in order: append them all. */
  items: ResponseInputItem.FunctionCallOutput[];
}

/**
 * Executes the `function_call` items of one response's `output` through the policy. Every
 * `call_id` gets its output item, also when the run stops in the middle of the turn.
 */
export async function executeResponseCalls(
  runtime: RecoveryRuntime,
  tools: AnyRecoveryToolSet,
  output: readonly ResponseOutputItem[],
  options: ExecuteToolCallsOptions = {},
): Promise<ResponseTurnResult> {
  const turn = await executeToolCalls(runtime, tools, functionCalls(output), options);
  return { ...turn, items: toOutputItems(turn.records) };
}

export function functionCalls(output: readonly ResponseOutputItem[]): PendingToolCall[] {
  return output
    .filter((item): item is ResponseFunctionToolCall => item.type === 'function_call')
    .map(toPendingCall);
}

export function toPendingCall(item: ResponseFunctionToolCall): PendingToolCall {
  return { callId: item.call_id, name: item.name, arguments: item.arguments };
}

export function toOutputItems(
  records: readonly ToolCallRecord[],
): ResponseInputItem.FunctionCallOutput[] {
  return records.map((record) => ({
    type: 'function_call_output',
    call_id: record.callId,
    output: record.output,
  }));
}
