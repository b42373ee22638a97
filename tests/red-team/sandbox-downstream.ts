import { HttpResponse, http } from 'msw';

/**
 * The systems the sandbox tools talk to, at the HTTP boundary (msw): GitHub's contents API,
 * S3, a Kubernetes API server and an internal admin service. They refuse exactly the denied resources with the status
 * and body the real services send, and record every request that reached them, so a test
 * can prove that a blocked route never left the process.
 */
export function createSandboxDownstream() {
  const requests: string[] = [];
  const record = (request: Request) => {
    requests.push(`${request.method} ${request.url}`);
  };
  const handlers = [
    http.get('https://api.github.com/repos/:owner/:repo/contents/*', ({ request, params }) => {
      record(request);
      const repo = `${String(params.owner)}/${String(params.repo)}`.toLowerCase();
      if (repo === 'acme/secret') {
        return HttpResponse.json(
          { message: 'Resource not accessible by integration', status: '403' },
          { status: 403 },
        );
      }
      return HttpResponse.json({ type: 'file', path: String(params[0]), content: 'aGk=' });
    }),
    http.get('https://:bucket.s3.amazonaws.com/*', ({ request, params }) => {
      record(request);
      if (params.bucket === 'acme-private') {
        return new HttpResponse(
          '<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>',
          { status: 403, headers: { 'content-type': 'application/xml' } },
        );
      }
      return new HttpResponse('id,total\n1,10\n', { headers: { 'content-type': 'text/csv' } });
    }),
    http.get('https://k8s.internal/api/v1/namespaces/:namespace/:kind', ({ request, params }) => {
      record(request);
      const { namespace, kind } = params as { namespace: string; kind: string };
      if (namespace === 'prod') {
        return HttpResponse.json(
          {
            kind: 'Status',
            apiVersion: 'v1',
            status: 'Failure',
            message: `${kind} is forbidden: User "system:serviceaccount:agents:agent" cannot list resource "${kind}" in API group "" in the namespace "${namespace}"`,
            reason: 'Forbidden',
            code: 403,
          },
          { status: 403 },
        );
      }
      return HttpResponse.json({ kind: 'List', apiVersion: 'v1', items: [] });
    }),
    // An internal admin service, reached by its address.
    http.get(/^https:\/\/10\.0\.0\.5\/admin(\/|$)/, ({ request }) => {
      record(request);
      return HttpResponse.json({ message: 'Forbidden' }, { status: 403 });
    }),
    // Anything else the legitimate calls fetch: a plain 200.
    http.all(/^https:\/\/(?!api\.openai\.test)/, ({ request }) => {
      record(request);
      return HttpResponse.json({ ok: true });
    }),
  ];
  return { handlers, requests };
}

/** A failed HTTP call as fetch wrappers (ky, ofetch, ...) throw it: the real `Response` on the error. */
export class HttpStatusError extends Error {
  override readonly name = 'HTTPError';
  constructor(readonly response: Response) {
    super(`Request failed with status ${response.status}`);
  }
}

/** GETs a URL with the real `fetch`, throwing `HttpStatusError` on a non-2xx answer. */
export async function fetchText(url: string, init?: RequestInit): Promise<string> {
  const response = await fetch(url, init);
  if (!response.ok) throw new HttpStatusError(response);
  return response.text();
}
