import { describe, expect, it } from 'vitest';
import {
  createHarness,
  drive,
  httpFailure,
  timeoutAfterWrite,
} from '../../../test-support/runtime-harness.js';
import { MemoryLedger } from '../../ledger/memory-ledger.js';
import { createFakeClock } from '../../testing/fake-clock.js';
import { callContext } from '../call-context.js';
import type { ToolPolicy } from '../options/recovery-options.js';

/** A payment provider that records every applied refund and may lose the response. */
function createPayments(options: { dedupeOnKey?: boolean } = {}) {
  const applied: { paymentId: string; key: string }[] = [];
  const requests: string[] = [];
  let loseNextResponse = false;
  return {
    applied,
    requests,
    loseNext() {
      loseNextResponse = true;
    },
    refund(input: { paymentId: string }) {
      const key = callContext().idempotencyKey;
      requests.push(key);
      const existing = applied.find((r) => r.key === key);
      if (!(options.dedupeOnKey && existing)) applied.push({ paymentId: input.paymentId, key });
      if (loseNextResponse) {
        loseNextResponse = false;
        throw timeoutAfterWrite();
      }
      return { refunded: input.paymentId };
    },
    findByKey: (key: string) => applied.find((r) => r.key === key),
  };
}

const refundInput = { paymentId: 'p-42', amount: 100 };

describe('a write whose response was lost after it landed', () => {
  it('with reconcile: asks the downstream before re-sending; exactly one refund, also when the model asks again', async () => {
    const payments = createPayments();
    const policy: ToolPolicy = {
      sideEffects: true,
      reconcile: async (_input, { idempotencyKey }) =>
        payments.findByKey(idempotencyKey)
          ? { happened: true, result: 'refunded' }
          : { happened: false },
    };
    const h = createHarness({ policies: { refund_payment: policy } });
    payments.loseNext();
    const first = await h.run('refund_payment', refundInput, (i) =>
      payments.refund(i as typeof refundInput),
    );
    expect(first).toMatchObject({ ok: true, value: 'refunded', deduplicated: true });
    const again = await h.run('refund_payment', { amount: 100, paymentId: 'p-42' }, (i) =>
      payments.refund(i as typeof refundInput),
    );
    expect(again).toMatchObject({ ok: true, value: 'refunded', deduplicated: true });
    expect(payments.applied).toHaveLength(1);
    expect(new Set(payments.requests).size).toBe(1);
    expect(h.events.map((e) => e.type)).toContain('reconcile.finished');
  });

  it('with reconcile saying it did not happen: retries behind the same key', async () => {
    const requests: string[] = [];
    let calls = 0;
    const h = createHarness({
      policies: { send_email: { sideEffects: true, reconcile: () => ({ happened: false }) } },
    });
    const result = await h.run('send_email', { to: 'a@b.c' }, () => {
      requests.push(callContext().idempotencyKey);
      if (++calls === 1) throw timeoutAfterWrite();
      return 'sent';
    });
    expect(result).toMatchObject({ ok: true, value: 'sent' });
    expect(requests).toHaveLength(2);
    expect(requests[0]).toBe(requests[1]);
  });

  it('with idempotent: true: replays behind the same key and the downstream dedupes', async () => {
    const payments = createPayments({ dedupeOnKey: true });
    const h = createHarness({
      policies: { refund_payment: { sideEffects: true, idempotent: true } },
    });
    payments.loseNext();
    const result = await h.run('refund_payment', refundInput, (i) =>
      payments.refund(i as typeof refundInput),
    );
    expect(result).toMatchObject({ ok: true, value: { refunded: 'p-42' } });
    expect(payments.requests).toHaveLength(2);
    expect(new Set(payments.requests).size).toBe(1);
    expect(payments.applied).toHaveLength(1);
  });

  it('with neither: does not re-send, and the outcome says reconcile by hand (write without checkpoint → abort)', async () => {
    const payments = createPayments();
    const h = createHarness({ policies: { refund_payment: { sideEffects: true } } });
    payments.loseNext();
    const result = await h.run('refund_payment', refundInput, (i) =>
      payments.refund(i as typeof refundInput),
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.contract).toMatchObject({
      failure_class: 'UNKNOWN_OUTCOME',
      recommended_recovery: 'ABORT',
      code: 'RECONCILE_BY_HAND',
      retry_same_action: false,
    });
    expect(payments.requests).toHaveLength(1);
    expect(h.runtime.outcome()).toMatchObject({
      status: 'FAILED',
      reason: 'RECONCILE_BY_HAND',
      needs_reconciliation: [{ tool: 'refund_payment' }],
    });
    // The key stays in doubt for a fresh run on the same ledger (a restart): still not re-sent.
    const restarted = createHarness(
      { policies: { refund_payment: { sideEffects: true } } },
      { ledger: h.ledger, clock: h.clock },
    );
    const repeat = await restarted.run('refund_payment', refundInput, (i) =>
      payments.refund(i as typeof refundInput),
    );
    expect(repeat).toMatchObject({ ok: false, contract: { code: 'RECONCILE_BY_HAND' } });
    expect(payments.requests).toHaveLength(1);
  });
});

describe('writes and the ledger', () => {
  it('a completed write is returned from the ledger without executing again', async () => {
    const h = createHarness({ policies: { create_issue: { sideEffects: true } } });
    let calls = 0;
    const execute = () => ({ issue: ++calls });
    expect(await h.run('create_issue', { title: 'bug' }, execute)).toMatchObject({
      ok: true,
      value: { issue: 1 },
      deduplicated: false,
    });
    expect(await h.run('create_issue', { title: 'bug' }, execute)).toMatchObject({
      ok: true,
      value: { issue: 1 },
      deduplicated: true,
    });
    expect(calls).toBe(1);
  });

  it('two concurrent identical writes execute once; the duplicate waits for the stored result', async () => {
    const clock = createFakeClock(0);
    const h = createHarness({ policies: { charge: { sideEffects: true } } }, { clock });
    let calls = 0;
    const execute = async () => {
      calls++;
      await clock.sleep(250);
      return 'charged';
    };
    const [a, b] = await drive(
      clock,
      Promise.all([
        h.runtime.execute({ toolName: 'charge', toolCallId: 'a', input: { n: 1 }, execute }),
        h.runtime.execute({ toolName: 'charge', toolCallId: 'b', input: { n: 1 }, execute }),
      ]),
    );
    expect(calls).toBe(1);
    expect(a).toMatchObject({ ok: true, value: 'charged' });
    expect(b).toMatchObject({ ok: true, value: 'charged', deduplicated: true });
  });

  it('a write that failed before landing (503) is retried behind the same key; a 412 is not re-sent', async () => {
    const h = createHarness({ policies: { merge: { sideEffects: true } } });
    const keys: string[] = [];
    let calls = 0;
    const merged = await h.run('merge', { pr: 1 }, () => {
      keys.push(callContext().idempotencyKey);
      if (++calls === 1) throw httpFailure(503);
      return 'merged';
    });
    expect(merged).toMatchObject({ ok: true, value: 'merged' });
    expect(new Set(keys).size).toBe(1);

    let staleCalls = 0;
    const stale = await h.run('merge', { pr: 2 }, () => {
      staleCalls++;
      throw httpFailure(412, 'Precondition Failed: branch is behind');
    });
    expect(staleCalls).toBe(1);
    expect(stale).toMatchObject({
      ok: false,
      contract: {
        failure_class: 'STALE_STATE',
        recommended_recovery: 'REOBSERVE',
        retry_same_action: false,
      },
    });
    // Nothing landed, so the claim was released: after re-observing, the same merge may run.
    expect(await h.run('merge', { pr: 2 }, () => 'merged')).toMatchObject({
      ok: true,
      value: 'merged',
    });
    expect(h.runtime.outcome().status).toBe('COMPLETED');
  });

  it('a store that is down means the write is not sent (fail closed)', async () => {
    const ledger = new MemoryLedger();
    ledger.claim = async () => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), {
        code: 'ECONNREFUSED',
      });
    };
    const h = createHarness({ ledger, policies: { refund: { sideEffects: true } } });
    let calls = 0;
    const result = await h.run('refund', { id: 1 }, () => ++calls);
    expect(calls).toBe(0);
    expect(result).toMatchObject({
      ok: false,
      contract: { code: 'LEDGER_UNAVAILABLE', recommended_recovery: 'ABORT' },
    });
  });

  it('the same key with a different payload is a conflict, not a silent replay', async () => {
    const h = createHarness({ policies: { pay: { sideEffects: true, key: () => 'order-7' } } });
    await h.run('pay', { amount: 1 }, () => 'paid');
    const other = await h.run('pay', { amount: 2 }, () => 'paid twice');
    expect(other).toMatchObject({
      ok: false,
      contract: { code: 'IDEMPOTENCY_CONFLICT', recommended_recovery: 'REPLAN' },
    });
  });
});

describe('writes that leave early', () => {
  it('an abort during a replay backoff keeps the key in doubt (never released as untouched)', async () => {
    const h = createHarness({ policies: { transfer: { sideEffects: true, idempotent: true } } });
    const controller = new AbortController();
    const reason = new DOMException('stopped by user', 'AbortError');
    const pending = h.runtime.execute({
      toolName: 'transfer',
      toolCallId: 'a',
      input: { amount: 5 },
      signal: controller.signal,
      execute: () => {
        throw timeoutAfterWrite();
      },
    });
    for (let i = 0; i < 5 && h.clock.pending() === 0; i++)
      await new Promise((r) => setImmediate(r));
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    const key = h.events.find((e) => e.type === 'call.started')?.idempotencyKey ?? '';
    expect((await h.ledger.get(key))?.state).toBe('uncertain');
  });

  it('once a lease renewal is refused, the write is not sent again', async () => {
    const ledger = new MemoryLedger({ clock: createFakeClock(0), leaseMs: 300 });
    ledger.renew = async () => false; // another worker took the claim over
    const clock = createFakeClock(0);
    const h = createHarness(
      { ledger, clock, policies: { charge: { sideEffects: true } } },
      { clock },
    );
    let sends = 0;
    const result = await h.run('charge', { n: 1 }, async () => {
      sends++;
      await clock.sleep(250); // long enough for a renewal to be attempted and refused
      throw httpFailure(503);
    });
    expect(sends).toBe(1);
    expect(result).toMatchObject({
      ok: false,
      contract: { code: 'LEASE_LOST', status: 'IN_FLIGHT', retry_same_action: false },
    });
  });
});
