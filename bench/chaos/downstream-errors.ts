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
  // A 422 names the field to fix, in its body (as OpenAI and Stripe do, `param`) and in
  // its text, so the recourse agent (which reads `invalid_field`) and a baseline's model
  // (which reads the text) know the same.
  const invalid =
    statusCode === 422 ? { message: 'amount must be positive', param: 'amount' } : undefined;
  return new APICallError({
    message: `${statusText[statusCode] ?? 'HTTP error'} (${statusCode}) for ${operation}${invalid ? `: ${invalid.message}` : ''}`,
    url: `https://downstream.test/${operation}`,
    requestBodyValues: {},
    statusCode,
    responseHeaders: headers,
    ...(invalid
      ? { responseBody: JSON.stringify({ error: invalid }), data: { error: invalid } }
      : {}),
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
