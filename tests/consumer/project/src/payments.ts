// The payment client the README snippets call: a stand-in for the user's own.
export interface RefundInput {
  paymentId: string;
  amount: number;
}

const byKey = new Map<string, RefundInput>();

export const payments = {
  async get(paymentId: string): Promise<{ paymentId: string; refunded: boolean }> {
    return {
      paymentId,
      refunded: [...byKey.values()].some((input) => input.paymentId === paymentId),
    };
  },
  async refund(input: RefundInput, options: { idempotencyKey: string }): Promise<string> {
    byKey.set(options.idempotencyKey, input);
    return 'refunded';
  },
  async findByKey(idempotencyKey: string): Promise<RefundInput | undefined> {
    return byKey.get(idempotencyKey);
  },
};
