import { HttpResponse, http, type JsonBodyType } from 'msw';

export interface ServiceRequest {
  url: string;
  key: string | null;
  body: unknown;
}

/**
 * One endpoint of a sandbox service at the HTTP boundary, answering in the order the test
 * scripts: a status with an error body, or `ok` with `reply`'s JSON. Every request is
 * recorded with its `Idempotency-Key` header.
 */
export function scriptedEndpoint(
  method: 'get' | 'post' | 'put',
  url: string,
  answers: (number | 'ok')[],
  reply: (request: ServiceRequest) => unknown = () => ({ ok: true }),
) {
  const queue = [...answers];
  const requests: ServiceRequest[] = [];
  const handler = http[method](url, async ({ request }) => {
    const text = await request.text();
    const recorded = {
      url: request.url,
      key: request.headers.get('idempotency-key'),
      body: text ? (JSON.parse(text) as unknown) : undefined,
    };
    requests.push(recorded);
    const answer = queue.shift() ?? 'ok';
    if (answer === 'ok') return HttpResponse.json(reply(recorded) as JsonBodyType);
    return HttpResponse.json({ error: { message: `HTTP ${answer}` } }, { status: answer });
  });
  return { handler, requests };
}
