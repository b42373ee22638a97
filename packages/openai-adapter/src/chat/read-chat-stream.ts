import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionMessageFunctionToolCall,
} from 'openai/resources/chat/completions';

/**
 * Folds a streamed completion into the `ChatCompletion` a plain request returns. Tool
 * calls arrive by `index`: id and name in the first chunk, the arguments in pieces.
 */
export async function readChatStream(
  stream: AsyncIterable<ChatCompletionChunk>,
): Promise<ChatCompletion> {
  let first: ChatCompletionChunk | undefined;
  let content: string | undefined;
  let finishReason: ChatCompletion.Choice['finish_reason'] | undefined;
  let usage: ChatCompletion['usage'];
  const calls = new Map<number, ChatCompletionMessageFunctionToolCall>();
  for await (const chunk of stream) {
    first ??= chunk;
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices[0];
    if (!choice) continue;
    if (choice.delta.content) content = (content ?? '') + choice.delta.content;
    for (const delta of choice.delta.tool_calls ?? []) {
      const call = calls.get(delta.index) ?? {
        id: '',
        type: 'function' as const,
        function: { name: '', arguments: '' },
      };
      if (delta.id) call.id = delta.id;
      if (delta.function?.name) call.function.name = delta.function.name;
      if (delta.function?.arguments) call.function.arguments += delta.function.arguments;
      calls.set(delta.index, call);
    }
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  const toolCalls = [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
  return {
    id: first?.id ?? '',
    object: 'chat.completion',
    created: first?.created ?? 0,
    model: first?.model ?? '',
    choices: [
      {
        index: 0,
        logprobs: null,
        finish_reason: finishReason ?? (toolCalls.length ? 'tool_calls' : 'stop'),
        message: {
          role: 'assistant',
          content: content ?? null,
          refusal: null,
          ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
        },
      },
    ],
    ...(usage ? { usage } : {}),
  };
}
