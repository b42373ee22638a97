import { describe, expect, it } from 'vitest';
import { callContext } from '../runtime/call-context.js';
import type { FakeClock } from './fake-clock.js';
import { createFakeClock } from './fake-clock.js';

// recourse's OpenTelemetry span of a tool call: one per call id, with the failure class,
// the recovery, the retries and a write's key; ERROR where the run was refused; no secret
// anywhere. One suite, run by every adapter through its own SDK (`describeToolSpans`) with
// an OpenTelemetry tracer provider and an in-memory exporter in place.

// A token in a failing system's error text, and one in the model's tool input.
export const spanTokens = {
  error: 'ghp_Ab3Cd5Ef7Gh9Jk1Lm3Np5Qr7St9Uv1Wx3Yz',
  input: `sk-proj-${'Zq8v1WbX4kL9mN2pR7sT0uY3aC6dF5gH'.repeat(2)}`,
};
const statusError = 2;

/** What the suite reads of a finished span (an sdk-trace-base ReadableSpan). */
export interface FinishedSpan {
  name: string;
  attributes: Record<string, unknown>;
  events: readonly { name: string; attributes?: Record<string, unknown> | undefined }[];
  status: { code: number };
  links?: readonly unknown[];
  instrumentationScope: { name: string };
}

/** One tool for the run: its input fields (the driver builds its SDK's schema) and `execute`. */
export interface SpanTool {
  fields: Record<string, 'string' | 'number'>;
  execute: (input: Record<string, unknown>) => unknown;
}

export interface ToolSpansDriver {
  /**
   * Scripts one call a step (`{ name, input, id }`), then `answer`; runs them with `tools`
   * under `createRecovery(options)` (plus `clock`, driven so no backoff waits) and the
   * adapter's own stop and guidance.
   */
  run(
    calls: readonly { name: string; input: Record<string, unknown>; id: string }[],
    answer: string,
    options: Record<string, unknown>,
    tools: Record<string, SpanTool>,
    clock?: FakeClock,
  ): Promise<{ outcome: object }>;
  /** Every span the exporter holds, recourse's and the SDK's. */
  spans(): readonly FinishedSpan[];
  /** A 503 the way the SDK's tools meet one. */
  busy(): unknown;
  /** Reads `repo` with `token` from a service that answers 403 "Bad credentials for token <spanTokens.error>". */
  forbidden(repo: string, token: string): Promise<unknown>;
  /** Where a recourse span sits among the SDK's own spans. */
  expectPlacement?(span: FinishedSpan): void;
  /** What the SDK's own spans hold after the denial (they are not recourse's to redact). */
  expectSdkSpans?(serialisedSdkSpans: string): void;
}

const serialised = (spans: readonly FinishedSpan[]) =>
  JSON.stringify(
    spans.map((span) => [span.name, span.attributes, span.events, span.status, span.links]),
  );

/** The tool-spans suite for one adapter: each of `variants` is run through `driverFor`. */
export function describeToolSpans<V extends object>(
  title: string,
  variants: readonly V[],
  driverFor: (variant: V) => ToolSpansDriver,
): void {
  describe.each(variants)(title, (variant) => {
    const driver = driverFor(variant);
    const recourseSpans = () =>
      driver.spans().filter((span) => span.instrumentationScope.name === '@recourse/core');
    /** The recourse span of a call: exactly one per tool call id (no nested copies). */
    const spanOf = (id: string): FinishedSpan => {
      const found = recourseSpans().filter((span) => span.attributes['gen_ai.tool.call.id'] === id);
      expect(found).toHaveLength(1);
      return found[0] as FinishedSpan;
    };
    const placed = (span: FinishedSpan) => driver.expectPlacement?.(span);

    it('a retry: a recourse.retry event with the delay slept, attempts 2, class and recovery', async () => {
      const clock = createFakeClock(1_000_000);
      let attempts = 0;
      await driver.run(
        [{ name: 'get_balance', input: { account: 'a-1' }, id: 'call_r' }],
        'ok',
        { runId: 'run-o2', defaultPolicy: { sideEffects: false }, random: () => 0.5 },
        {
          get_balance: {
            fields: { account: 'string' },
            execute: ({ account }) => {
              if (++attempts === 1) throw driver.busy();
              return { account, balance: 100 };
            },
          },
        },
        clock,
      );
      const span = spanOf('call_r');
      expect(clock.sleeps).toHaveLength(1);
      expect(span.events.map((event) => [event.name, event.attributes])).toEqual([
        ['recourse.retry', { 'recourse.attempt': 1, 'recourse.retry.delay_ms': clock.sleeps[0] }],
      ]);
      expect(span.attributes).toMatchObject({
        'recourse.attempts': 2,
        'recourse.failure_class': 'TRANSIENT',
        'recourse.recovery.action': 'RETRY',
      });
      expect(span.attributes['error.type']).toBeUndefined();
      expect(span.attributes['recourse.idempotency_key']).toBeUndefined();
      expect(span.status.code).not.toBe(statusError);
      placed(span);
    });

    it('a reconciled write: its idempotency key, UNKNOWN_OUTCOME → RECONCILE, no error status', async () => {
      // A payments service: the first refund lands, then its response is lost.
      const applied: string[] = [];
      await driver.run(
        [{ name: 'refund_payment', input: { paymentId: 'p-42', amount: 100 }, id: 'call_w' }],
        'done',
        {
          runId: 'run-o3',
          policies: {
            refund_payment: {
              sideEffects: true,
              reconcile: (_input: unknown, { idempotencyKey }: { idempotencyKey: string }) =>
                applied.includes(idempotencyKey)
                  ? { happened: true, result: 'refunded' }
                  : { happened: false },
            },
          },
        },
        {
          refund_payment: {
            fields: { paymentId: 'string', amount: 'number' },
            execute: () => {
              applied.push(callContext().idempotencyKey);
              if (applied.length === 1)
                throw new DOMException('The operation timed out.', 'TimeoutError');
              return 'refunded';
            },
          },
        },
      );
      const span = spanOf('call_w');
      expect(applied).toHaveLength(1);
      expect(span.attributes).toMatchObject({
        'gen_ai.tool.name': 'refund_payment',
        'recourse.idempotency_key': applied[0],
        'recourse.attempts': 1,
        'recourse.failure_class': 'UNKNOWN_OUTCOME',
        'recourse.recovery.action': 'RECONCILE',
      });
      expect(span.attributes['error.type']).toBeUndefined();
      expect(span.status.code).not.toBe(statusError);
      placed(span);
    });

    it('a denial and a blocked bypass: status ERROR, error.type, class, action; no token anywhere', async () => {
      const reached: unknown[] = [];
      await driver.run(
        [
          {
            name: 'github_api',
            input: { repo: 'acme/secret', token: spanTokens.input },
            id: 'call_403',
          },
          {
            name: 'github_api',
            input: { repo: 'ACME/Secret', token: spanTokens.input },
            id: 'call_bypass',
          },
        ],
        'could not read it',
        {
          runId: 'run-o4',
          onDenial: 'continue',
          policies: {
            github_api: {
              sideEffects: false,
              resource: (input: { repo: string }) =>
                `https://github.com/${input.repo.toLowerCase()}`,
            },
          },
        },
        {
          github_api: {
            fields: { repo: 'string', token: 'string' },
            execute: ({ repo, token }) => {
              reached.push(repo);
              return driver.forbidden(String(repo), String(token));
            },
          },
        },
      );
      expect(reached).toEqual(['acme/secret']);
      const denied = spanOf('call_403');
      expect(denied.status.code).toBe(statusError);
      expect(denied.attributes).toMatchObject({
        'error.type': 'FORBIDDEN',
        'recourse.failure_class': 'AUTHORIZATION',
        'recourse.recovery.action': 'ABORT',
        'recourse.decision.code': 'AUTHORIZATION_DENIED',
        'recourse.attempts': 1,
      });
      const blocked = spanOf('call_bypass');
      expect(blocked.status.code).toBe(statusError);
      expect(blocked.attributes).toMatchObject({
        'error.type': 'DENIED_EARLIER',
        'recourse.failure_class': 'AUTHORIZATION',
        'recourse.recovery.action': 'ABORT',
        'recourse.attempts': 0,
      });
      placed(denied);
      placed(blocked);
      // Neither the error's token nor the input's reaches any attribute, event or status
      // message of recourse's spans.
      expect(serialised(recourseSpans())).not.toContain(spanTokens.error.slice(4, 20));
      expect(serialised(recourseSpans())).not.toContain(spanTokens.input.slice(8, 24));
      // What recourse hands the SDK (the contract, the next request) carries no error token.
      expect(serialised(driver.spans())).not.toContain(spanTokens.error.slice(4, 20));
      driver.expectSdkSpans?.(
        serialised(
          driver.spans().filter((span) => span.instrumentationScope.name !== '@recourse/core'),
        ),
      );
    });

    it('a poison step: the third identical validation failure is ERROR with decision code POISON', async () => {
      const bad = { customerId: 'c-1', email: 'not-an-email' };
      const { outcome } = await driver.run(
        ['call_v1', 'call_v2', 'call_v3'].map((id) => ({ name: 'update_email', input: bad, id })),
        'gave up',
        { runId: 'run-o5', repairBudget: 2 },
        {
          update_email: {
            fields: { customerId: 'string', email: 'string' },
            execute: () => {
              throw Object.assign(new Error(`email: invalid format (${spanTokens.error})`), {
                status: 422,
              });
            },
          },
        },
      );
      expect(outcome).toMatchObject({ status: 'FAILED', reason: 'POISON' });
      const [first, second, third] = ['call_v1', 'call_v2', 'call_v3'].map(spanOf);
      for (const repaired of [first, second]) {
        expect(repaired?.attributes).toMatchObject({
          'error.type': 'INVALID_INPUT',
          'recourse.failure_class': 'VALIDATION',
          'recourse.recovery.action': 'REPAIR',
        });
      }
      expect(third?.status.code).toBe(statusError);
      expect(third?.attributes).toMatchObject({
        'error.type': 'INVALID_INPUT',
        'recourse.failure_class': 'VALIDATION',
        'recourse.recovery.action': 'ABORT',
        'recourse.decision.code': 'POISON',
      });
      // One span per call; an adapter that also traces its model requests has those besides.
      const toolSpans = recourseSpans().filter(
        (span) => span.attributes['gen_ai.operation.name'] !== 'chat',
      );
      expect(toolSpans).toHaveLength(3);
      for (const span of [first, second, third]) placed(span as FinishedSpan);
      expect(serialised(driver.spans())).not.toContain(spanTokens.error.slice(4, 20));
    });
  });
}
