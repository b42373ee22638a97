import { contractText, type RecoveryRuntime } from '@recourse/core/adapter';
import { AIMessage, type ToolMessage } from 'langchain';
import { InvalidToolCallError } from './langchain-errors.js';
import { answerMessage } from './tool-messages.js';

/** What `afterModel` hands back to the agent: answers to add, and where to go next. */
export interface InvalidCallsUpdate {
  messages?: ToolMessage[];
  jumpTo?: 'model' | 'end';
}

/**
 * Calls of the model's last message whose arguments did not parse. LangChain's chat models
 * put them in `invalid_tool_calls`, and the agent never runs or answers them: with no valid
 * call beside them the loop just ends, the model's broken request taken for its answer.
 * Each is a VALIDATION failure of the run (repair guidance, counted against the repair
 * budget: the same broken call past it is poison). When they are the message's only calls,
 * each is answered with its contract and the model is asked again (or the loop ends, the
 * run stopped). Beside valid calls they are left unanswered, since LangChain sends the
 * provider only the valid calls of such a message, and an answer to a call it never sent
 * is refused (HTTP 400): the model reads the repair in its guidance instead.
 */
export async function answerInvalidToolCalls(
  runtime: RecoveryRuntime,
  messages: readonly unknown[],
): Promise<InvalidCallsUpdate | undefined> {
  const last = messages.at(-1);
  if (!AIMessage.isInstance(last)) return undefined;
  const invalid = last.invalid_tool_calls ?? [];
  if (invalid.length === 0) return undefined;
  // The turn of the message's valid calls (see `turnOf`): they wait for these verdicts.
  const turn = typeof last.id === 'string' && last.id !== '' ? `message:${last.id}` : last;
  const answers: ToolMessage[] = [];
  for (const broken of invalid) {
    const call = { toolName: broken.name ?? '', toolCallId: broken.id ?? '' };
    const result = await runtime.recordFailure({
      ...call,
      input: broken.args,
      error: new InvalidToolCallError(call.toolName, broken.error),
      turn,
    });
    answers.push(answerMessage({ text: contractText(result.contract), result }, call));
  }
  if ((last.tool_calls ?? []).length > 0) return undefined;
  return { messages: answers, jumpTo: runtime.isStopped() ? 'end' : 'model' };
}
