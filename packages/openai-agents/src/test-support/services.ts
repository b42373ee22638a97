import { HttpResponse, http } from 'msw';
import OpenAI from 'openai';

/**
 * The downstream services the test agents call, as msw handlers at the HTTP boundary:
 * payments (refunds keyed by `Idempotency-Key`, a lookup by key for reconcile), a
 * GitHub-like API (403 on acme/secret, 412 on merge), a CRM (422 naming the field), and a
 * status endpoint that answers 503 first. Every request and applied write is recorded.
 */
export function createServices() {
  const services = {
    /** Every refund request that reached the payments service. */
    refundRequests: [] as { paymentId: string; key: string }[],
    /** Every refund applied. */
    refunds: [] as { paymentId: string; amount: number; key: string }[],
    /** When true, the next refund is applied and then its response is lost (a timeout). */
    loseNextResponse: false,
    /** When true, a repeated key is answered with the stored refund (Stripe-like). */
    dedupe: false,
    statusRequests: 0,
    statusFailures: 1,
    githubRequests: [] as string[],
    crmRequests: [] as unknown[],
    mergeRequests: 0,
    /** The abort that stands for the client's timeout of the current refund request. */
    cutResponse: undefined as (() => void) | undefined,
    reset() {
      services.refundRequests.length = 0;
      services.refunds.length = 0;
      services.loseNextResponse = false;
      services.dedupe = false;
      services.statusRequests = 0;
      services.statusFailures = 1;
      services.githubRequests.length = 0;
      services.crmRequests.length = 0;
      services.mergeRequests = 0;
    },
  };
  const handlers = [
    http.post('https://payments.test/refunds', async ({ request }) => {
      const body = (await request.json()) as { paymentId: string; amount: number };
      const key = request.headers.get('idempotency-key') ?? '';
      services.refundRequests.push({ paymentId: body.paymentId, key });
      const known = services.refunds.find((refund) => refund.key === key);
      if (services.dedupe && known) return HttpResponse.json({ id: `re_${key.length}`, ...known });
      services.refunds.push({ ...body, key });
      if (services.loseNextResponse) {
        services.loseNextResponse = false;
        services.cutResponse?.();
        return new Promise<never>(() => {}); // the response never comes
      }
      return HttpResponse.json({ status: 'refunded', paymentId: body.paymentId });
    }),
    http.get('https://payments.test/refunds', ({ request }) => {
      const key = new URL(request.url).searchParams.get('key');
      const found = services.refunds.find((refund) => refund.key === key);
      return HttpResponse.json({ data: found ? [found] : [] });
    }),
    http.get('https://payments.test/status', () => {
      services.statusRequests += 1;
      if (services.statusRequests <= services.statusFailures)
        return HttpResponse.json({ error: { message: 'upstream unavailable' } }, { status: 503 });
      return HttpResponse.json({ status: 'operational' });
    }),
    http.get('https://github.test/repos/:owner/:repo', ({ params }) => {
      services.githubRequests.push(`${params.owner}/${params.repo}`);
      return params.repo === 'secret'
        ? HttpResponse.json({ error: { message: 'Resource not accessible' } }, { status: 403 })
        : HttpResponse.json({ name: params.repo });
    }),
    http.put('https://github.test/repos/:owner/:repo/pulls/:id/merge', () => {
      services.mergeRequests += 1;
      return HttpResponse.json(
        { error: { message: 'Head branch was modified. Review and try the merge again.' } },
        { status: 412 },
      );
    }),
    http.post('https://crm.test/customers', async ({ request }) => {
      const body = (await request.json()) as { email?: string };
      services.crmRequests.push(body);
      if (!body.email?.includes('@'))
        return HttpResponse.json(
          {
            error: {
              message: 'email must be an address',
              param: 'email',
              type: 'invalid_request_error',
            },
          },
          { status: 422 },
        );
      return HttpResponse.json({ id: 'cus_1', email: body.email });
    }),
  ];
  return { services, handlers };
}

export type Services = ReturnType<typeof createServices>['services'];

/** A real HTTP client for the fake services: `openai`'s, so failures are real `APIError`s. */
export function serviceClient(baseURL: string): OpenAI {
  return new OpenAI({ apiKey: 'service-key', baseURL, maxRetries: 0 });
}

/**
 * POSTs a refund with the idempotency key, the way a payments SDK does; the client gives up
 * with a `TimeoutError` when the service lost the response.
 */
export async function postRefund(
  services: Services,
  input: { paymentId: string; amount: number },
  key: string,
): Promise<unknown> {
  const timeout = new AbortController();
  services.cutResponse = () =>
    timeout.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
  const response = await fetch('https://payments.test/refunds', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify(input),
    signal: timeout.signal,
  });
  return response.json();
}

/** The payments service's lookup by idempotency key: did that refund land? */
export async function findRefund(key: string): Promise<boolean> {
  const response = await fetch(`https://payments.test/refunds?key=${encodeURIComponent(key)}`);
  const body = (await response.json()) as { data: unknown[] };
  return body.data.length > 0;
}
