import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';

/**
 * A `fetch` for the SDK's streamable HTTP client transport that tells when the response
 * stream of a POSTed request ends, and whether that stream can be resumed (it carried an
 * SSE event id, so the transport reconnects and the answer may still come). A stream that
 * breaks or ends without its answer and cannot be resumed loses the request: MCP's client
 * must re-issue it, which for a write is an unknown outcome. The SDK reports that only as
 * a transport error naming no request, so the proxy watches the stream itself.
 */
export function watchHttpStreams(
  base: FetchLike,
  onStreamEnd: (ids: readonly RequestId[], resumable: boolean) => void,
): FetchLike {
  return async (input, init) => {
    const response = await base(input, init);
    const ids = init?.method === 'POST' ? requestIds(init.body) : [];
    if (ids.length === 0 || !response.body || [204, 205, 304].includes(response.status)) {
      return response;
    }
    let resumable = false;
    let tail = '';
    const decoder = new TextDecoder();
    const watched = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          if (!resumable) {
            tail = (tail + decoder.decode(chunk, { stream: true })).slice(-4096);
            resumable = /(^|\n)id:/.test(tail);
          }
          controller.enqueue(chunk);
        },
        flush() {
          onStreamEnd(ids, resumable);
        },
      }),
    );
    // A stream that errors (the connection dropped) never flushes: report it as it fails.
    const reader = watched.getReader();
    const relay = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (error) {
          onStreamEnd(ids, resumable);
          controller.error(error);
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    });
    return new Response(relay, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

function requestIds(body: unknown): RequestId[] {
  if (typeof body !== 'string') return [];
  try {
    const parsed = JSON.parse(body) as unknown;
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    return messages.flatMap((message) => {
      const m = message as { id?: unknown; method?: unknown } | null;
      return typeof m?.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number')
        ? [m.id]
        : [];
    });
  } catch {
    return [];
  }
}
