/**
 * What a model request is, for its tracing span and duration metric (the GenAI semantic
 * conventions' inference attributes). Adapters describe their requests; the core knows
 * no provider.
 */
export interface ModelRequest {
  /** `gen_ai.request.model`, the model asked for, e.g. `gpt-4o`. */
  model?: string | undefined;
  /** `gen_ai.provider.name`, e.g. `openai`. */
  provider?: string | undefined;
  /** `gen_ai.operation.name`. Default `chat`. */
  operation?: string | undefined;
  /** `gen_ai.request.stream`: the response is streamed. */
  stream?: boolean | undefined;
}
