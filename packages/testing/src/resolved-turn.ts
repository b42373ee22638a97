import type { ScriptedUsage } from './script-steps.js';

/** A tool call with the ids the provider minted for it. */
export interface ResolvedToolCall {
  /** `call_id` (responses) / `id` (chat): what the client answers with its tool result. */
  readonly callId: string;
  /** The responses output item id (`fc_…`), which stream events name as `item_id`. */
  readonly itemId: string;
  readonly name: string;
  readonly arguments: string;
}

/** One turn ready to encode in either API's wire format. */
export interface ResolvedTurn {
  /** `chatcmpl-…` or `resp_…`. */
  readonly id: string;
  /** The responses message item id (`msg_…`). */
  readonly messageId: string;
  readonly model: string;
  /** Seconds since the epoch; fixed so bodies are deterministic. */
  readonly created: number;
  readonly text?: string | undefined;
  readonly toolCalls: readonly ResolvedToolCall[];
  readonly usage: ScriptedUsage;
}

export const defaultUsage: ScriptedUsage = { inputTokens: 10, outputTokens: 5 };

/** Splits a string in two so streams exercise the client's accumulation. */
export function splitInTwo(value: string): string[] {
  if (value.length < 2) return [value];
  const middle = Math.ceil(value.length / 2);
  return [value.slice(0, middle), value.slice(middle)];
}
