/**
 * Calls a sandbox service over HTTP (msw) the way a fetch wrapper such as ky does: a
 * non-2xx status throws an error that carries the real `Response`.
 */
export async function callService(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  body?: unknown,
): Promise<unknown> {
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json' },
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
