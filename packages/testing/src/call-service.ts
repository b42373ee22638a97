/**
 * Calls a sandbox service over HTTP (msw) the way a fetch wrapper such as ky does: a
 * non-2xx status throws an error that carries the real `Response`. An `idempotencyKey`
 * goes out as the `Idempotency-Key` header, the way Stripe-style APIs take it.
 */
export async function callService(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  body?: unknown,
  options: { idempotencyKey?: string } = {},
): Promise<unknown> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
  const response = await fetch(url, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) {
    const error = new Error(
      `${method} ${new URL(url).pathname} failed with status ${response.status}`,
    );
    throw Object.assign(error, { response });
  }
  return response.status === 204 ? undefined : response.json();
}
