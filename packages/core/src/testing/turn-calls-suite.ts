import { describe, expect, it } from 'vitest';

// The calls of one model response, handed to the runtime as one turn: unrelated reads
// overlap, a write waits for the calls before it, a denial stops the later writes and the
// calls reaching what was denied. One suite, run by every adapter through its own SDK
// (`describeTurnCalls`). In-flight counts and the downstream's own record, never times.

/** One call of the scripted response (the model asks them all at once). */
export interface TurnCall {
  name: 'refund_payment' | 'get_payment' | 'send_email' | 'read_file' | 'shell';
  input: Record<string, unknown>;
  id: string;
}

/** What one turn through an adapter's SDK left behind. */
export interface TurnCallsRun {
  /** Every request that reached the downstream (the turn shop's record). */
  requests: readonly string[];
  /** The most downstream calls in flight at once. */
  maxInFlight: number;
  /** The text the model read for a call id. */
  text(callId: string): string;
  /** The recovery contract the model read for a call id. */
  contract(callId: string): Record<string, unknown>;
  outcome: { status: string; completed_steps: readonly string[] };
  /** The steps the run took (model responses it acted on). */
  steps: number;
  /** Call ids some request to the model left without an answer, where the SDK shows them. */
  unanswered?: readonly string[] | undefined;
}

export interface TurnCallsDriver {
  /**
   * Scripts one response asking `calls`, then the text `answer`; runs it with the turn
   * shop's tools (ai-sdk-adapter/test-support/turn-shop.ts: its handlers in place) under
   * `createRecovery({ runId: 'run-turn', policies: turnPolicies, ...options })`, with the
   * adapter's own stop (a denial ends the run unless `onDenial: 'continue'`).
   */
  run(
    calls: readonly TurnCall[],
    answer: string,
    options: { onDenial?: 'continue'; parallelWrites?: boolean },
    prompt: string,
  ): Promise<TurnCallsRun>;
}

const call = (name: TurnCall['name'], input: Record<string, unknown>, id: string): TurnCall => ({
  name,
  input,
  id,
});

/** The turn-calls suite for one adapter: each of `variants` is run through `driverFor`. */
export function describeTurnCalls<V extends object>(
  title: string,
  variants: readonly V[],
  driverFor: (variant: V) => TurnCallsDriver,
): void {
  describe.each(variants)(title, (variant) => {
    const driver = driverFor(variant);

    it('a denial refuses the later write and the overlapping read of its turn; they never run', async () => {
      // The refund is denied; the email, a read of the same payment and an unrelated read
      // share its turn.
      const run = await driver.run(
        [
          call('refund_payment', { paymentId: 'p-1' }, 'refund'),
          call('send_email', { to: 'customer@example.test' }, 'email'),
          call('get_payment', { paymentId: 'p-1' }, 'payment'),
          call('read_file', { path: '/srv/app/README.md' }, 'readme'),
        ],
        'we refunded you',
        {},
        'Refund p-1 and tell the customer',
      );
      expect(run.requests).not.toContain('email customer@example.test');
      expect(run.requests).not.toContain('payment p-1');
      expect([...run.requests].sort()).toEqual(['file /srv/app/README.md', 'refund p-1']);
      expect(run.contract('email')).toMatchObject({
        code: 'RUN_STOPPED',
        retry_same_action: false,
      });
      expect(run.contract('payment')).toMatchObject({
        status: 'BLOCKED',
        code: 'DENIED_EARLIER',
        resource: 'payment:p-1',
      });
      expect(run.text('readme')).toBe('contents of /srv/app/README.md');
      expect(run.steps).toBe(1);
      expect(run.outcome.status).toBe('BLOCKED');
      expect(run.outcome.completed_steps).not.toContain('send_email');
      if (run.unanswered) expect(run.unanswered).toEqual([]);
    });

    it("onDenial 'continue': the bypass in the same turn is refused; the unrelated read and the write run", async () => {
      const run = await driver.run(
        [
          call('read_file', { path: '/srv/app/.env' }, 'env'),
          call('shell', { command: 'cat /srv/app/.env' }, 'bypass'),
          call('read_file', { path: '/srv/app/README.md' }, 'readme'),
          call('send_email', { to: 'ops@example.test' }, 'email'),
        ],
        'done',
        { onDenial: 'continue' },
        'Read the config',
      );
      expect(run.requests.filter((r) => r === 'file /srv/app/.env')).toHaveLength(1);
      expect(run.requests).toContain('file /srv/app/README.md');
      expect(run.requests).toContain('email ops@example.test');
      expect(run.contract('bypass')).toMatchObject({
        status: 'BLOCKED',
        code: 'DENIED_EARLIER',
        resource: 'file:///srv/app/.env',
      });
    });

    it('unrelated reads of a turn run side by side', async () => {
      const run = await driver.run(
        [
          call('read_file', { path: '/srv/app/a.txt' }, 'a'),
          call('read_file', { path: '/srv/app/b.txt' }, 'b'),
          call('get_payment', { paymentId: 'p-2' }, 'payment'),
        ],
        'done',
        {},
        'Read them',
      );
      expect(run.maxInFlight).toBe(3);
      expect(run.requests).toHaveLength(3);
      expect(run.outcome.status).toBe('COMPLETED');
    });

    it('a write waits for the calls before it: never two in flight', async () => {
      const run = await driver.run(
        [
          call('refund_payment', { paymentId: 'p-2' }, 'refund'),
          call('send_email', { to: 'customer@example.test' }, 'email'),
        ],
        'done',
        {},
        'Refund p-2 and tell the customer',
      );
      expect(run.requests).toEqual(['refund p-2', 'email customer@example.test']);
      expect(run.maxInFlight).toBe(1);
      expect(run.outcome.status).toBe('COMPLETED');
    });

    it('parallelWrites: writes of a turn run side by side; what overlaps a denial still waits', async () => {
      const run = await driver.run(
        [
          call('refund_payment', { paymentId: 'p-1' }, 'refund'),
          call('send_email', { to: 'customer@example.test' }, 'email'),
          call('get_payment', { paymentId: 'p-1' }, 'payment'),
        ],
        'done',
        { parallelWrites: true },
        'Refund p-1 and tell the customer',
      );
      expect(run.maxInFlight).toBe(2);
      expect(run.requests).toContain('email customer@example.test');
      expect(run.requests).not.toContain('payment p-1');
    });
  });
}
