import { HttpResponse } from 'msw';
import { createChatChunks, createChatCompletion, createChatErrorChunks } from './chat-format.js';
import type { EventFrame } from './event-stream.js';
import { createEventStream, eventStreamHeaders } from './event-stream.js';
import type { ProviderApi } from './provider-request.js';
import type { ResolvedTurn } from './resolved-turn.js';
import {
  createResponse,
  createResponseErrorEvents,
  createResponseEvents,
  type ResponseEvent,
} from './responses-format.js';
import type { ScriptedErrorData, ScriptedHttpError } from './script-steps.js';

/** What one request is answered with, ids already minted. */
export type RenderedStep =
  | { readonly kind: 'turn'; readonly turn: ResolvedTurn }
  | {
      readonly kind: 'stream-error';
      readonly turn: ResolvedTurn;
      readonly error: ScriptedErrorData;
    }
  | ScriptedHttpError;

export interface RenderTarget {
  readonly api: ProviderApi;
  readonly stream: boolean;
  /** Chat only: the request's `stream_options.include_usage`. */
  readonly includeUsage: boolean;
}

const chatFrames = (chunks: unknown[], done: boolean): EventFrame[] => {
  const frames: EventFrame[] = chunks.map((chunk) => ({ data: JSON.stringify(chunk) }));
  return done ? [...frames, { data: '[DONE]' }] : frames;
};

const responseFrames = (events: ResponseEvent[]): EventFrame[] =>
  events.map((event) => ({ event: event.type, data: JSON.stringify(event.data) }));

function renderHttpError(step: ScriptedHttpError): Response {
  const isText = typeof step.body === 'string';
  const body = isText ? (step.body as string) : JSON.stringify(step.body);
  const contentType = isText ? 'text/plain' : 'application/json';
  return new HttpResponse(body, {
    status: step.status,
    headers: { 'content-type': contentType, ...step.headers },
  });
}

function streamResponse(frames: EventFrame[]): Response {
  return new HttpResponse(createEventStream(frames), { headers: eventStreamHeaders });
}

/** Encodes a step as the HTTP response the given API and mode expect. */
export function renderStep(step: RenderedStep, target: RenderTarget): Response {
  if (step.kind === 'http-error') return renderHttpError(step);
  if (step.kind === 'stream-error') {
    if (!target.stream) {
      return renderHttpError({
        kind: 'http-error',
        status: 500,
        headers: {},
        body: { error: step.error },
      });
    }
    return streamResponse(
      target.api === 'chat'
        ? chatFrames(createChatErrorChunks(step.turn, step.error), false)
        : responseFrames(createResponseErrorEvents(step.turn, step.error)),
    );
  }
  if (!target.stream) {
    return HttpResponse.json(
      target.api === 'chat' ? createChatCompletion(step.turn) : createResponse(step.turn),
    );
  }
  return streamResponse(
    target.api === 'chat'
      ? chatFrames(createChatChunks(step.turn, target.includeUsage), true)
      : responseFrames(createResponseEvents(step.turn)),
  );
}
