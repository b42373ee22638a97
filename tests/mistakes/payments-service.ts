import { delay, HttpResponse, http } from 'msw';

export const paymentsURL = 'https://payments.test';

/**
 * What the service does with one refund request. `applied-*`: the refund is applied, then
 * the answer is lost (a gateway timeout, a 500, a response that never comes). `busy` and
 * `throttled`: refused before anything was applied (503, 429). `rejected`: a 422, nothing
 * applied. `ok`: applied and answered.
 */
export type RefundBehaviour =
  | 'ok'
  | 'applied-then-504'
  | 'applied-then-500'
  | 'applied-then-hang'
  | 'busy'
  | 'throttled'
  | 'rejected';

export interface RefundRequest {
  key: string | null;
  paymentId: string;
  amount: number;
}

export interface PaymentsService {
  readonly handlers: ReturnType<typeof http.post>[];
  /** Every refund request that reached the service, with its Idempotency-Key header. */
  readonly requests: RefundRequest[];
  /** Every refund actually applied: a card refunded twice shows here twice. */
  readonly applied: RefundRequest[];
  /** Every payment lookup (a read) that reached the service. */
  readonly lookups: string[];
  /** How the next refund requests behave, in order; after them, `ok`. */
  script(...behaviours: RefundBehaviour[]): void;
  /** Honour the Idempotency-Key (a repeated key returns the first answer, applies nothing). */
  dedupe: boolean;
  /** Called as each refund is applied, before the service answers (or fails to). */
  onApplied: ((refund: RefundRequest) => void) | undefined;
  /** Resolves when the next refund is applied. */
  nextApplied(): Promise<RefundRequest>;
  /** The applied refund behind an idempotency key: what a correct `reconcile` reads. */
  findByKey(key: string): RefundRequest | undefined;
  reset(): void;
}

/**
 * A sandbox payments API at the HTTP boundary (msw): `POST /v1/refunds` applies a refund,
 * `GET /v1/refunds?key=` finds one by idempotency key, `GET /v1/payments/:id` reads a
 * payment. It records every request and every applied refund, so a test can count the
 * refunds a card really got.
 */
export function createPaymentsService(): PaymentsService {
  let queue: RefundBehaviour[] = [];
  const service: PaymentsService = {
    requests: [],
    applied: [],
    lookups: [],
    dedupe: false,
    onApplied: undefined,
    script(...behaviours) {
      queue = behaviours;
    },
    nextApplied: () =>
      new Promise((resolve) => {
        service.onApplied = resolve;
      }),
    findByKey: (key) => service.applied.find((refund) => refund.key === key),
    reset() {
      queue = [];
      service.requests.length = 0;
      service.applied.length = 0;
      service.lookups.length = 0;
      service.dedupe = false;
      service.onApplied = undefined;
    },
    handlers: [
      http.post(`${paymentsURL}/v1/refunds`, async ({ request }) => {
        const body = (await request.json()) as { paymentId: string; amount: number };
        const refund: RefundRequest = {
          key: request.headers.get('idempotency-key'),
          paymentId: body.paymentId,
          amount: body.amount,
        };
        service.requests.push(refund);
        const behaviour = queue.shift() ?? 'ok';
        if (behaviour === 'rejected') {
          return HttpResponse.json(
            { error: { type: 'invalid_request_error', message: 'amount exceeds the payment' } },
            { status: 422 },
          );
        }
        if (behaviour === 'busy') return HttpResponse.json({ error: 'busy' }, { status: 503 });
        if (behaviour === 'throttled') {
          return HttpResponse.json(
            { error: 'rate limited' },
            { status: 429, headers: { 'retry-after': '1' } },
          );
        }
        const earlier = refund.key === null ? undefined : service.findByKey(refund.key);
        if (!(service.dedupe && earlier)) {
          service.applied.push(refund);
          service.onApplied?.(refund);
        }
        const answer = { id: `re_${service.applied.length}`, status: 'succeeded', ...body };
        switch (behaviour) {
          case 'applied-then-504':
            return HttpResponse.json({ error: 'upstream timed out' }, { status: 504 });
          case 'applied-then-500':
            return HttpResponse.json({ error: 'internal error' }, { status: 500 });
          case 'applied-then-hang':
            await delay('infinite');
            return HttpResponse.json(answer);
          default:
            return HttpResponse.json(answer);
        }
      }),
      http.get(`${paymentsURL}/v1/refunds`, ({ request }) => {
        const key = new URL(request.url).searchParams.get('key') ?? '';
        const found = service.findByKey(key);
        return found
          ? HttpResponse.json({ data: [found] })
          : HttpResponse.json({ data: [] }, { status: 200 });
      }),
      http.get(`${paymentsURL}/v1/payments/:id`, ({ params }) => {
        service.lookups.push(String(params.id));
        return HttpResponse.json({ id: params.id, amount: 100, refundable: true });
      }),
    ],
  };
  return service;
}

/** A non-2xx answer, thrown the way fetch wrappers (ky, ofetch) do: the `Response` on the error. */
export class PaymentsHttpError extends Error {
  override readonly name = 'HTTPError';
  constructor(readonly response: Response) {
    super(`payments answered ${response.status}`);
  }
}

/** What a user's refund tool does: POST the refund with the call's idempotency key. */
export async function postRefund(
  input: { paymentId: string; amount: number },
  key: string,
  signal?: AbortSignal | undefined,
): Promise<{ id: string; status: string }> {
  const response = await fetch(`${paymentsURL}/v1/refunds`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify(input),
    signal: signal ?? null,
  });
  if (!response.ok) throw new PaymentsHttpError(response);
  return (await response.json()) as { id: string; status: string };
}

/** A read: GET the payment. */
export async function getPayment(paymentId: string, signal?: AbortSignal | undefined) {
  const response = await fetch(`${paymentsURL}/v1/payments/${encodeURIComponent(paymentId)}`, {
    signal: signal ?? null,
  });
  if (!response.ok) throw new PaymentsHttpError(response);
  return (await response.json()) as { id: string; amount: number; refundable: boolean };
}

/** What a correct `reconcile` does: ask the service whether a refund with this key exists. */
export async function findRefund(key: string): Promise<RefundRequest | undefined> {
  const response = await fetch(`${paymentsURL}/v1/refunds?key=${encodeURIComponent(key)}`);
  const { data } = (await response.json()) as { data: RefundRequest[] };
  return data[0];
}
