import { answerText, type RecoveryRuntime } from '@recourse/core/adapter';
import { ToolMessage } from 'langchain';
import { isGraphBubbleUp, ToolMessageError } from './langchain-errors.js';
import { answerMessage } from './tool-messages.js';

/** The part of LangChain's `wrapToolCall` request this reads (langchain 1.x). */
export interface ToolCallRequestLike {
  toolCall: { name: string; args: unknown; id?: string | undefined };
  tool?: unknown;
  state?: { messages?: readonly unknown[] | undefined } | undefined;
  runtime: { signal?: AbortSignal | undefined };
}

/**
 * One tool call of the agent through the runtime. `handler` is LangChain's: it validates
 * the arguments and runs the tool (and the middleware inside this one), once per attempt.
 * What the tool answered is the call's result; its `ToolMessage` goes back to the agent as
 * it is (artifact included) when this call produced it, and a result the call did not
 * produce (from the ledger, a reconcile, a fallback) gets a new one. A failure is answered
 * with the recovery contract, never thrown: LangChain ends the whole run on an error out
 * of middleware.
 */
export async function runToolCall<Request extends ToolCallRequestLike, Output>(
  runtime: RecoveryRuntime,
  request: Request,
  handler: (request: Request) => Promise<Output> | Output,
): Promise<Output | ToolMessage> {
  const { toolCall } = request;
  const call = { toolName: toolCall.name, toolCallId: toolCall.id ?? '' };
  let attempts = 0;
  // What the latest attempt answered, and the value the runtime saw for it.
  let answered: { output: Output; value: unknown } | undefined;
  const result = await runtime.execute({
    ...call,
    input: toolCall.args,
    signal: request.runtime.signal,
    turn: turnOf(request),
    isPause: isGraphBubbleUp,
    execute: async (input) => {
      const attempt = ++attempts;
      const output = await handler({ ...request, toolCall: { ...toolCall, args: input } });
      if (ToolMessage.isInstance(output) && output.status === 'error') {
        throw new ToolMessageError(output.text, request.tool === undefined);
      }
      const value = ToolMessage.isInstance(output) ? output.content : output;
      // An attempt the runtime gave up on (its deadline passed) must not stand for a later one.
      if (attempt === attempts) answered = { output, value };
      return value;
    },
  });
  if (result.ok && answered && !result.deduplicated && !result.degraded) {
    if (answered.value === result.value) return answered.output;
  }
  return answerMessage(await answerText(runtime, { ...call, input: toolCall.args }, result), call);
}

/**
 * The turn (one model response) a call belongs to: the AI message that asked for it, by its
 * id (each call runs in its own LangGraph task, and a task resumed from a checkpoint holds
 * its own copy of the message), else the message itself. LangGraph starts the tasks of one
 * message in the order of its tool calls.
 */
function turnOf(request: ToolCallRequestLike): unknown {
  const id = request.toolCall.id;
  const messages = request.state?.messages ?? [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as { id?: unknown; tool_calls?: { id?: string }[] } | undefined;
    if (!message?.tool_calls?.some((call) => call.id === id)) continue;
    return typeof message.id === 'string' && message.id !== '' ? `message:${message.id}` : message;
  }
  return undefined;
}
