import { callContext } from '@recourse/core';

/**
 * A payment provider that records every refund it applies, keyed by the idempotency
 * key it received. `loseResponses` makes it apply the refund and then time out, the
 * case a bare retry turns into a double refund.
 */
export function createPaymentProvider(
  options: { loseResponses?: number; dedupeOnKey?: boolean } = {},
) {
  let toLose = options.loseResponses ?? 0;
  const refunds: { paymentId: string; amount: number; idempotencyKey: string }[] = [];
  const requests: string[] = [];
  return {
    refunds,
    requests,
    async refund(paymentId: string, amount: number) {
      const { idempotencyKey } = callContext();
      requests.push(idempotencyKey);
      const existing = refunds.find((r) => r.idempotencyKey === idempotencyKey);
      if (!(options.dedupeOnKey && existing)) refunds.push({ paymentId, amount, idempotencyKey });
      if (toLose > 0) {
        toLose--;
        throw new DOMException('The operation was aborted due to timeout', 'TimeoutError');
      }
      return { status: 'refunded', paymentId, amount };
    },
    async findByKey(idempotencyKey: string) {
      return refunds.find((r) => r.idempotencyKey === idempotencyKey);
    },
  };
}

/** An HTTP-style error as fetch-based clients throw them. */
export function httpError(status: number, message: string): Error {
  return Object.assign(new Error(message), { status });
}
