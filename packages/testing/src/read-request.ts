import { isRecord } from './is-record.js';
import type { ProviderApi, ProviderRequest } from './provider-request.js';
import { extractToolResults } from './tool-results.js';

function parseBody(rawBody: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(rawBody);
    return isRecord(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** Turns an intercepted fetch request into a log entry. */
export async function readRequest(
  request: Request,
  api: ProviderApi,
  index: number,
): Promise<ProviderRequest> {
  const rawBody = await request.text();
  const body = parseBody(rawBody);
  return {
    index,
    api,
    stream: body.stream === true,
    url: request.url,
    body,
    rawBody,
    headers: Object.fromEntries(request.headers),
    toolResults: extractToolResults(api, body, index),
  };
}
