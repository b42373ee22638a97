import type { ModelRequest } from '@recourse/core';

/**
 * A loop's model requests as their tracing spans name them (GenAI conventions): the
 * model asked for, on the OpenAI API. Built once per loop, not per request.
 */
export function describeRequest(model: unknown, stream: boolean | null | undefined): ModelRequest {
  return {
    model: typeof model === 'string' ? model : undefined,
    provider: 'openai',
    stream: Boolean(stream),
  };
}
