export type ProviderApi = 'chat' | 'responses';

/** A tool result the client sent back to the model, the same shape for both APIs. */
export interface ToolResult {
  readonly api: ProviderApi;
  readonly callId: string;
  /** The result text (content parts are joined). */
  readonly output: string;
  /** The index of the request in which this result first appeared. */
  readonly requestIndex: number;
}

/** One request the scripted provider received. */
export interface ProviderRequest {
  /** 0-based, in order of arrival. */
  readonly index: number;
  readonly api: ProviderApi;
  readonly stream: boolean;
  readonly url: string;
  /** The parsed JSON body (`{}` when the body was not a JSON object). */
  readonly body: Readonly<Record<string, unknown>>;
  /** The body exactly as sent, to assert that something was never sent to the model. */
  readonly rawBody: string;
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string>>;
  /** The tool results carried by this request (chat repeats old ones every turn). */
  readonly toolResults: readonly ToolResult[];
}
