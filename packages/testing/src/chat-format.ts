import type { ResolvedTurn } from './resolved-turn.js';
import { splitInTwo } from './resolved-turn.js';
import type { ScriptedErrorData } from './script-steps.js';

function finishReason(turn: ResolvedTurn): 'tool_calls' | 'stop' {
  return turn.toolCalls.length > 0 ? 'tool_calls' : 'stop';
}

function chatUsage(turn: ResolvedTurn) {
  const { inputTokens, outputTokens } = turn.usage;
  return {
    prompt_tokens: inputTokens,
    completion_tokens: outputTokens,
    total_tokens: inputTokens + outputTokens,
  };
}

/** A non-streaming `chat.completion` body. */
export function createChatCompletion(turn: ResolvedTurn): Record<string, unknown> {
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: turn.text ?? null,
    refusal: null,
  };
  if (turn.toolCalls.length > 0) {
    message.tool_calls = turn.toolCalls.map((call) => ({
      id: call.callId,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  return {
    id: turn.id,
    object: 'chat.completion',
    created: turn.created,
    model: turn.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(turn) }],
    usage: chatUsage(turn),
  };
}

/**
 * The `chat.completion.chunk` objects of a streamed turn: role, text pieces, each tool
 * call's header then its arguments in pieces, the finish chunk, and the usage chunk when
 * the request asked for it (`stream_options.include_usage`). `[DONE]` is the caller's.
 */
export function createChatChunks(turn: ResolvedTurn, includeUsage: boolean): unknown[] {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    id: turn.id,
    object: 'chat.completion.chunk',
    created: turn.created,
    model: turn.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  const chunks: unknown[] = [chunk({ role: 'assistant' })];
  for (const piece of turn.text === undefined ? [] : splitInTwo(turn.text)) {
    chunks.push(chunk({ content: piece }));
  }
  turn.toolCalls.forEach((call, index) => {
    chunks.push(
      chunk({
        tool_calls: [
          {
            index,
            id: call.callId,
            type: 'function',
            function: { name: call.name, arguments: '' },
          },
        ],
      }),
    );
    for (const piece of splitInTwo(call.arguments)) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  chunks.push(chunk({}, finishReason(turn)));
  if (includeUsage) {
    chunks.push({
      id: turn.id,
      object: 'chat.completion.chunk',
      created: turn.created,
      model: turn.model,
      choices: [],
      usage: chatUsage(turn),
    });
  }
  return chunks;
}

/** The chunks of a chat stream that breaks: text pieces, then an `{ error }` frame. */
export function createChatErrorChunks(turn: ResolvedTurn, error: ScriptedErrorData): unknown[] {
  const chunks = createChatChunks({ ...turn, toolCalls: [] }, false);
  // Drop the finish chunk: the stream breaks before the model finishes.
  chunks.pop();
  chunks.push({ error });
  return chunks;
}
