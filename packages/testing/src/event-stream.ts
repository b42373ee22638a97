/** One server-sent event frame. */
export interface EventFrame {
  /** The `event:` line; the chat API sends none. */
  readonly event?: string | undefined;
  readonly data: string;
}

/** Encodes one frame as `event: …\ndata: …\n\n`. */
export function encodeFrame(frame: EventFrame): string {
  const eventLine = frame.event === undefined ? '' : `event: ${frame.event}\n`;
  return `${eventLine}data: ${frame.data}\n\n`;
}

/**
 * A `text/event-stream` body that hands the client one frame per read, so clients meet
 * real chunk boundaries; msw's `sse()` helper only answers GET, and OpenAI streams POSTs.
 */
export function createEventStream(frames: readonly EventFrame[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const frame = frames[next++];
      if (frame === undefined) {
        controller.close();
        return;
      }
      controller.enqueue(encoder.encode(encodeFrame(frame)));
    },
  });
}

export const eventStreamHeaders = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
} as const;
