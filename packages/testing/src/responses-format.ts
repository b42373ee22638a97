import type { ResolvedToolCall, ResolvedTurn } from './resolved-turn.js';
import { splitInTwo } from './resolved-turn.js';
import type { ScriptedErrorData } from './script-steps.js';

/** One server-sent event: `event: type` plus its JSON data. */
export interface ResponseEvent {
  readonly type: string;
  readonly data: Record<string, unknown>;
}

function responsesUsage(turn: ResolvedTurn) {
  const { inputTokens, outputTokens } = turn.usage;
  return {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: inputTokens + outputTokens,
  };
}

const textPart = (text: string) => ({ type: 'output_text', text, annotations: [], logprobs: [] });

function messageItem(turn: ResolvedTurn, text: string, status: string) {
  const content = status === 'completed' ? [textPart(text)] : [];
  return { type: 'message', id: turn.messageId, status, role: 'assistant', content };
}

function functionCallItem(call: ResolvedToolCall, status: string) {
  const args = status === 'completed' ? call.arguments : '';
  return {
    type: 'function_call',
    id: call.itemId,
    call_id: call.callId,
    name: call.name,
    arguments: args,
    status,
  };
}

function outputItems(turn: ResolvedTurn): Record<string, unknown>[] {
  const items: Record<string, unknown>[] = [];
  if (turn.text !== undefined) items.push(messageItem(turn, turn.text, 'completed'));
  for (const call of turn.toolCalls) items.push(functionCallItem(call, 'completed'));
  return items;
}

function responseObject(turn: ResolvedTurn, status: string, output: unknown[], usage: unknown) {
  return {
    id: turn.id,
    object: 'response',
    created_at: turn.created,
    status,
    error: null,
    incomplete_details: null,
    instructions: null,
    model: turn.model,
    output,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    usage,
  };
}

/** A non-streaming `response` body. */
export function createResponse(turn: ResolvedTurn): Record<string, unknown> {
  return responseObject(turn, 'completed', outputItems(turn), responsesUsage(turn));
}

/** The opening events and every output item's events, up to (not including) the finish. */
function createItemEvents(turn: ResolvedTurn): ResponseEvent[] {
  const events: ResponseEvent[] = [];
  const emit = (type: string, data: Record<string, unknown>) => events.push({ type, data });
  const started = responseObject(turn, 'in_progress', [], null);
  emit('response.created', { response: started });
  emit('response.in_progress', { response: started });
  let outputIndex = 0;
  if (turn.text !== undefined) {
    const text = turn.text;
    const at = { item_id: turn.messageId, output_index: outputIndex, content_index: 0 };
    emit('response.output_item.added', {
      output_index: outputIndex,
      item: messageItem(turn, text, 'in_progress'),
    });
    emit('response.content_part.added', { ...at, part: textPart('') });
    for (const delta of splitInTwo(text)) {
      emit('response.output_text.delta', { ...at, delta, logprobs: [] });
    }
    emit('response.output_text.done', { ...at, text, logprobs: [] });
    emit('response.content_part.done', { ...at, part: textPart(text) });
    emit('response.output_item.done', {
      output_index: outputIndex,
      item: messageItem(turn, text, 'completed'),
    });
    outputIndex++;
  }
  for (const call of turn.toolCalls) {
    const at = { item_id: call.itemId, output_index: outputIndex };
    emit('response.output_item.added', {
      output_index: outputIndex,
      item: functionCallItem(call, 'in_progress'),
    });
    for (const delta of splitInTwo(call.arguments)) {
      emit('response.function_call_arguments.delta', { ...at, delta });
    }
    emit('response.function_call_arguments.done', { ...at, arguments: call.arguments });
    emit('response.output_item.done', {
      output_index: outputIndex,
      item: functionCallItem(call, 'completed'),
    });
    outputIndex++;
  }
  return events;
}

function numberEvents(events: ResponseEvent[]): ResponseEvent[] {
  return events.map((event, index) => ({
    type: event.type,
    data: { type: event.type, sequence_number: index, ...event.data },
  }));
}

/** Every event of a streamed turn, numbered, ending with `response.completed`. */
export function createResponseEvents(turn: ResolvedTurn): ResponseEvent[] {
  const events = createItemEvents(turn);
  events.push({ type: 'response.completed', data: { response: createResponse(turn) } });
  return numberEvents(events);
}

/** A stream that breaks: the text's events, then an `error` event instead of a finish. */
export function createResponseErrorEvents(
  turn: ResolvedTurn,
  error: ScriptedErrorData,
): ResponseEvent[] {
  const events = createItemEvents({ ...turn, toolCalls: [] });
  events.push({
    type: 'error',
    data: { code: error.code, message: error.message, param: error.param },
  });
  return numberEvents(events);
}
