/** One function call the scripted model makes. */
export interface ScriptedToolCall {
  readonly kind: 'tool-call';
  readonly name: string;
  /** The raw `arguments` string sent to the client (may be invalid JSON on purpose). */
  readonly arguments: string;
  /** The call id; minted as `call_1`, `call_2`, … when absent. */
  readonly id?: string | undefined;
}

/** Token counts reported with a turn; small fixed numbers by default. */
export interface ScriptedUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** One assistant answer: optional text plus any number of (parallel) tool calls. */
export interface ScriptedTurn {
  readonly kind: 'turn';
  readonly text?: string | undefined;
  readonly toolCalls: readonly ScriptedToolCall[];
  readonly usage?: ScriptedUsage | undefined;
}

/** The OpenAI-style error object carried by error responses and error frames. */
export interface ScriptedErrorData {
  readonly message: string;
  readonly type: string;
  readonly code: string | null;
  readonly param: string | null;
}

/** The model call itself fails with an HTTP status. */
export interface ScriptedHttpError {
  readonly kind: 'http-error';
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** The exact response body: JSON-encoded unless it is a string. */
  readonly body: unknown;
}

/** A 200 stream that carries some text, then an error frame instead of a normal finish. */
export interface ScriptedStreamError {
  readonly kind: 'stream-error';
  readonly error: ScriptedErrorData;
  /** Text streamed before the error frame. */
  readonly text?: string | undefined;
}

/** A part that can be combined with others into one turn (`[toolCall(…), toolCall(…)]`). */
export type ScriptedTurnPart = ScriptedToolCall | ScriptedTurn;

/** What the model does for one request. */
export type ScriptStep =
  | ScriptedTurn
  | ScriptedToolCall
  | ScriptedHttpError
  | ScriptedStreamError
  | readonly ScriptedTurnPart[];

export interface ToolCallOptions {
  id?: string | undefined;
}

/** A turn with one tool call. `args` is JSON-encoded unless it is already a string. */
export function toolCall(
  name: string,
  args: unknown,
  options: ToolCallOptions = {},
): ScriptedToolCall {
  const encoded = typeof args === 'string' ? args : JSON.stringify(args ?? {});
  return options.id === undefined
    ? { kind: 'tool-call', name, arguments: encoded }
    : { kind: 'tool-call', name, arguments: encoded, id: options.id };
}

/** A turn with assistant text only (the model's final answer). */
export function text(content: string): ScriptedTurn {
  return { kind: 'turn', text: content, toolCalls: [] };
}

export interface TurnOptions {
  text?: string | undefined;
  toolCalls?: readonly ScriptedToolCall[] | undefined;
  usage?: ScriptedUsage | undefined;
}

/** A turn spelled out: text and tool calls together, or custom usage numbers. */
export function turn(options: TurnOptions): ScriptedTurn {
  return {
    kind: 'turn',
    text: options.text,
    toolCalls: options.toolCalls ?? [],
    usage: options.usage,
  };
}

/** Folds any step that is a turn (a tool call, a text, an array of them) into one turn. */
export function toTurn(step: ScriptedTurnPart | readonly ScriptedTurnPart[]): ScriptedTurn {
  const parts: readonly ScriptedTurnPart[] = isTurnPartArray(step) ? step : [step];
  const texts: string[] = [];
  const toolCalls: ScriptedToolCall[] = [];
  let usage: ScriptedUsage | undefined;
  for (const part of parts) {
    if (part.kind === 'tool-call') {
      toolCalls.push(part);
      continue;
    }
    if (part.text !== undefined) texts.push(part.text);
    toolCalls.push(...part.toolCalls);
    usage = part.usage ?? usage;
  }
  return { kind: 'turn', text: texts.length > 0 ? texts.join('') : undefined, toolCalls, usage };
}

function isTurnPartArray(
  step: ScriptedTurnPart | readonly ScriptedTurnPart[],
): step is readonly ScriptedTurnPart[] {
  return Array.isArray(step);
}
