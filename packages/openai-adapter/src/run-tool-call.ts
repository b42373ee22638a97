import {
  answerText,
  callContext,
  type RecoveryRuntime,
  type ToolCallResult,
} from '@recourse/core/adapter';
import type { AnyRecoveryToolSet } from './define-tools.js';
import { NoSuchToolError } from './tool-errors.js';

/** A function call as both APIs deliver it: id, name and the raw arguments string. */
export interface PendingToolCall {
  callId: string;
  name: string;
  arguments: string;
}

/** What happened to one call, and the exact text the model is sent back. */
export interface ToolCallRecord {
  callId: string;
  toolName: string;
  /** The parsed input, or the raw arguments text when it was not JSON. */
  input: unknown;
  output: string;
  result: ToolCallResult;
}

/**
 * One call through the policy: unknown tool and bad arguments are recorded as
 * VALIDATION failures (they count against the repair budget) and `execute` never runs;
 * otherwise `runtime.execute` runs it. Always yields an output, so the call is answered.
 */
export async function runToolCall(
  runtime: RecoveryRuntime,
  tools: AnyRecoveryToolSet,
  call: PendingToolCall,
  signal?: AbortSignal | undefined,
  turn?: object | undefined,
): Promise<ToolCallRecord> {
  const base = { toolName: call.name, toolCallId: call.callId };
  const tool = tools.get(call.name);
  const parsed = tool
    ? tool.parse(call.arguments)
    : {
        ok: false as const,
        input: call.arguments,
        error: new NoSuchToolError(call.name, [...tools.names]),
      };
  let ran: ToolCallResult;
  if (!parsed.ok && !runtime.isStopped()) {
    ran = await runtime.recordFailure({
      ...base,
      input: parsed.input,
      error: parsed.error,
      turn,
    });
  } else {
    // Once the run has stopped, the runtime answers without running anything.
    ran = await runtime.execute({
      ...base,
      input: parsed.input,
      signal,
      turn,
      execute: (input, attemptSignal) => {
        // Only reached with a known tool and valid input: a stopped run runs nothing.
        if (!tool || !parsed.ok) throw new NoSuchToolError(call.name, [...tools.names]);
        const context = callContext();
        return tool.definition.execute(input as never, {
          runId: context.runId,
          toolName: context.toolName,
          toolCallId: context.toolCallId,
          attempt: context.attempt,
          // Derived on first read, like the context's own.
          get idempotencyKey() {
            return context.idempotencyKey;
          },
          signal: attemptSignal,
        });
      },
    });
  }
  const { text: output, result } = await answerText(runtime, { ...base, input: parsed.input }, ran);
  return { callId: call.callId, toolName: call.name, input: parsed.input, output, result };
}
