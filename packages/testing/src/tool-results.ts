import { isRecord } from './is-record.js';
import type { ProviderApi, ToolResult } from './provider-request.js';

/** Content is a string or an array of text parts (`text` / `input_text` / `output_text`). */
function contentToText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return content === undefined ? '' : JSON.stringify(content);
  return content
    .map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : ''))
    .join('');
}

/**
 * Reads the tool results out of one request body: chat `{ role: 'tool', tool_call_id,
 * content }` messages and responses `{ type: 'function_call_output', call_id, output }`
 * input items.
 */
export function extractToolResults(
  api: ProviderApi,
  body: Readonly<Record<string, unknown>>,
  requestIndex: number,
): ToolResult[] {
  const list = api === 'chat' ? body.messages : body.input;
  if (!Array.isArray(list)) return [];
  const results: ToolResult[] = [];
  for (const entry of list) {
    if (!isRecord(entry)) continue;
    if (api === 'chat' && entry.role === 'tool' && typeof entry.tool_call_id === 'string') {
      results.push({
        api,
        callId: entry.tool_call_id,
        output: contentToText(entry.content),
        requestIndex,
      });
    }
    if (
      api === 'responses' &&
      entry.type === 'function_call_output' &&
      typeof entry.call_id === 'string'
    ) {
      results.push({
        api,
        callId: entry.call_id,
        output: contentToText(entry.output),
        requestIndex,
      });
    }
  }
  return results;
}

/** Each call id once, in order of first appearance (chat histories repeat old results). */
export function collectToolResults(perRequest: readonly (readonly ToolResult[])[]): ToolResult[] {
  const seen = new Set<string>();
  const results: ToolResult[] = [];
  for (const entry of perRequest.flat()) {
    if (seen.has(entry.callId)) continue;
    seen.add(entry.callId);
    results.push(entry);
  }
  return results;
}
