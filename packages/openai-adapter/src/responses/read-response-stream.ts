import type {
  Response,
  ResponseFunctionToolCall,
  ResponseOutputItem,
  ResponseStreamEvent,
} from 'openai/resources/responses/responses';

/** A streamed response failed (`response.failed`) or ended without finishing. */
export class ResponseFailedError extends Error {
  readonly code: string | undefined;
  readonly response: Response | undefined;
  constructor(message: string, code: string | undefined, response?: Response | undefined) {
    super(message);
    this.name = 'ResponseFailedError';
    this.code = code;
    this.response = response;
  }
}

/**
 * Reads a streamed response. `onFunctionCall` is called as each `function_call` item is
 * done (so execution starts while the model is still streaming); the text is collected
 * from `response.output_text.delta`/`done`. Returns the final response, whose `output`
 * falls back to the items seen when a provider's `response.completed` carries none.
 */
export async function readResponseStream(
  stream: AsyncIterable<ResponseStreamEvent>,
  onFunctionCall: (item: ResponseFunctionToolCall) => void,
): Promise<{ response: Response; text: string }> {
  const texts = new Map<string, string>();
  const items = new Map<number, ResponseOutputItem>();
  const argumentsById = new Map<string, string>();
  let final: Response | undefined;
  for await (const event of stream) {
    switch (event.type) {
      case 'response.output_text.delta': {
        const at = `${event.item_id}:${event.content_index}`;
        texts.set(at, (texts.get(at) ?? '') + event.delta);
        break;
      }
      case 'response.output_text.done':
        texts.set(`${event.item_id}:${event.content_index}`, event.text);
        break;
      case 'response.function_call_arguments.delta':
        argumentsById.set(event.item_id, (argumentsById.get(event.item_id) ?? '') + event.delta);
        break;
      case 'response.output_item.done': {
        let item = event.item;
        if (item.type === 'function_call') {
          // Some providers send the done item without its arguments: use the deltas.
          if (!item.arguments && item.id)
            item = { ...item, arguments: argumentsById.get(item.id) ?? '' };
          onFunctionCall(item);
        }
        items.set(event.output_index, item);
        break;
      }
      case 'response.completed':
      case 'response.incomplete':
        final = event.response;
        break;
      case 'response.failed':
        throw new ResponseFailedError(
          event.response.error?.message ?? 'the response failed',
          event.response.error?.code,
          event.response,
        );
      default:
        break;
    }
  }
  // A stream cut short is a server fault (retried under the budget), not an empty answer.
  if (!final)
    throw new ResponseFailedError(
      'the stream ended before the response was complete',
      'server_error',
    );
  const seen = [...items.entries()].sort(([a], [b]) => a - b).map(([, item]) => item);
  const response = final.output.length > 0 ? final : { ...final, output: seen };
  return { response, text: [...texts.values()].join('') };
}
