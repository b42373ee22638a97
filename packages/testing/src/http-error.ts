import type { ScriptedErrorData, ScriptedHttpError, ScriptedStreamError } from './script-steps.js';

export interface HttpErrorOptions {
  /** Sent as the `retry-after` header, in seconds. */
  retryAfter?: number | undefined;
  /** Sent as the `retry-after-ms` header (OpenAI's millisecond variant). */
  retryAfterMs?: number | undefined;
  /** Extra response headers (lower-case names win over the ones above). */
  headers?: Record<string, string> | undefined;
  /** Replaces the whole response body: JSON-encoded unless it is a string. */
  body?: unknown;
  message?: string | undefined;
  type?: string | undefined;
  code?: string | null | undefined;
  param?: string | null | undefined;
}

// What OpenAI answers for each status (message, type, code), so clients and classifiers
// see realistic bodies without every test spelling them out.
const defaults: Record<number, readonly [string, string, string | null]> = {
  400: ['Invalid request.', 'invalid_request_error', null],
  401: ['Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key'],
  403: ['You are not allowed to access this resource.', 'permission_error', null],
  404: ['The model does not exist.', 'invalid_request_error', 'model_not_found'],
  409: ['Conflict.', 'invalid_request_error', null],
  422: ['Unprocessable request.', 'invalid_request_error', null],
  429: ['Rate limit reached for requests.', 'requests', 'rate_limit_exceeded'],
  500: ['The server had an error while processing your request.', 'server_error', null],
  502: ['Bad gateway.', 'server_error', null],
  503: ['The engine is currently overloaded, please try again later.', 'server_error', null],
  504: ['Gateway timeout.', 'server_error', null],
};

/** Builds OpenAI's `{ message, type, code, param }` error object for a status. */
export function describeError(status: number, options: HttpErrorOptions = {}): ScriptedErrorData {
  const [message, type, code] =
    defaults[status] ?? (status >= 500 ? defaults[500]! : defaults[400]!);
  return {
    message: options.message ?? message,
    type: options.type ?? (options.code === 'insufficient_quota' ? 'insufficient_quota' : type),
    code: options.code === undefined ? code : options.code,
    param: options.param ?? null,
  };
}

/** The model call fails: 429 with `retryAfter`, 500, 503, or any status and body. */
export function httpError(status: number, options: HttpErrorOptions = {}): ScriptedHttpError {
  const headers: Record<string, string> = {};
  if (options.retryAfter !== undefined) headers['retry-after'] = String(options.retryAfter);
  if (options.retryAfterMs !== undefined) headers['retry-after-ms'] = String(options.retryAfterMs);
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    headers[name.toLowerCase()] = value;
  }
  const body = 'body' in options ? options.body : { error: describeError(status, options) };
  return { kind: 'http-error', status, headers, body };
}

export interface StreamErrorOptions {
  /** Text streamed before the error frame. */
  text?: string | undefined;
  message?: string | undefined;
  type?: string | undefined;
  code?: string | null | undefined;
  param?: string | null | undefined;
}

/**
 * A 200 stream that breaks with an error frame (default: a server error). A non-streaming
 * request gets the same error as an HTTP 500.
 */
export function streamError(options: StreamErrorOptions = {}): ScriptedStreamError {
  const error = describeError(500, options);
  return options.text === undefined
    ? { kind: 'stream-error', error }
    : { kind: 'stream-error', error, text: options.text };
}
