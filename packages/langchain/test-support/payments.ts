import { randomUUID } from 'node:crypto';
import { callContext } from '@recourse/langchain';
import { HttpResponse, http } from 'msw';

export const paymentsUrl = 'https://payments.test';

export interface PaymentRequest {
  key: string;
  body: { paymentId: string; amount: number };
}

type Answer = 'ok' | 'lose-response' | number;

/**
 * A sandbox payment service at the HTTP boundary: records every refund request with its
 * `Idempotency-Key` header, applies it unless the key was applied before (`dedupe`), and
 * answers each request as the test scripts it: `ok`, a status, or `lose-response` (the
 * refund lands, the response never comes: the client's timeout fires).
 */
export function createPayments(
  options: { answers?: Answer[]; dedupe?: boolean; onApplied?: () => void } = {},
) {
  const answers = [...(options.answers ?? [])];
  const requests: PaymentRequest[] = [];
  const applied: PaymentRequest[] = [];
  const handlers = [
    http.post(`${paymentsUrl}/refunds`, async ({ request }) => {
      const key = request.headers.get('idempotency-key') ?? '';
      const body = (await request.json()) as PaymentRequest['body'];
      const answer = answers.shift() ?? 'ok';
      requests.push({ key, body });
      if (typeof answer === 'number' && answer >= 400) {
        return HttpResponse.json(
          { error: { status: answer, message: refusal(answer), field: 'amount' } },
          { status: answer },
        );
      }
      if (!(options.dedupe && applied.some((write) => write.key === key))) {
        applied.push({ key, body });
        options.onApplied?.();
      }
      if (answer === 'lose-response') {
        // Held until the client gives up: the refund landed, its answer is lost.
        await new Promise((resolve) => request.signal.addEventListener('abort', resolve));
        return HttpResponse.error();
      }
      return HttpResponse.json({ refundId: `re_${applied.length}`, status: 'refunded' });
    }),
    http.get(`${paymentsUrl}/refunds`, ({ request }) => {
      const key = new URL(request.url).searchParams.get('key');
      const found = applied.find((write) => write.key === key);
      return found
        ? HttpResponse.json({ status: 'refunded', key })
        : HttpResponse.json({ error: 'not found' }, { status: 404 });
    }),
  ];
  return { handlers, requests, applied };
}

function refusal(status: number): string {
  if (status === 422) return 'amount exceeds the captured amount of 100';
  if (status === 503) return 'Service Unavailable';
  return `HTTP ${status}`;
}

/** Refunds through the service as a fetch wrapper would: a non-2xx status throws with the Response. */
export async function postRefund(
  body: PaymentRequest['body'],
  idempotencyKey: string,
  options: { timeoutMs?: number; signal?: AbortSignal | undefined } = {},
): Promise<unknown> {
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 100);
  const response = await fetch(`${paymentsUrl}/refunds`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
    body: JSON.stringify(body),
    signal: options.signal ? AbortSignal.any([options.signal, timeout]) : timeout,
  });
  if (!response.ok) {
    const error = new Error(`POST /refunds failed with status ${response.status}`);
    throw Object.assign(error, { response });
  }
  return response.json();
}

/** The service's own record of a refund made under `idempotencyKey`: the reconcile read. */
export async function findRefund(idempotencyKey: string): Promise<boolean> {
  const url = `${paymentsUrl}/refunds?key=${encodeURIComponent(idempotencyKey)}`;
  return (await fetch(url)).ok;
}

/**
 * The key a tool sends: recourse's under recourse, otherwise a fresh one per call (what an
 * agent without a stable key for the logical operation sends; the baselines).
 */
export function currentKey(): string {
  try {
    return callContext().idempotencyKey;
  } catch {
    return `fresh-${randomUUID()}`;
  }
}
