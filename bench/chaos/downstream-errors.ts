import { APICallError } from 'ai';

/**
 * The errors the downstream raises are the real objects a client library throws: the AI
 * SDK's `APICallError` for HTTP statuses (what `@ai-sdk/*` and tool code built on it
 * surface) and undici's `DOMException` named `TimeoutError` for a client timeout.
 */
export function httpError(
  operation: string,
  statusCode: number,
  headers: Record<string, string> = {},
): APICallError {
  return new APICallError({
    message: `${statusText[statusCode] ?? 'HTTP error'} (${statusCode}) for ${operation}`,
    url: `https://downstream.test/${operation}`,
    requestBodyValues: {},
    statusCode,
    responseHeaders: headers,
    isRetryable: statusCode === 429 || statusCode >= 500,
  });
}

export function timeoutError(): DOMException {
  return new DOMException('The operation was aborted due to timeout', 'TimeoutError');
}

const statusText: Record<number, string> = {
  403: 'Forbidden',
  412: 'Precondition Failed',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  503: 'Service Unavailable',
};

/** The HTTP status of a thrown value, as a model reading the error text would see it. */
export function statusOf(error: unknown): number | undefined {
  return APICallError.isInstance(error) ? error.statusCode : undefined;
}
