import { InvalidOptionsError, type RecoveryEvent } from '@recourse/core';
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import { z } from 'zod';
import { createRecovery, type OpenAIRecoveryOptions } from './index.js';

/** Options as plain JavaScript passes them: no type checker between the typo and recourse. */
function construct(options: Record<string, unknown>): unknown {
  try {
    createRecovery({ runId: 'run-so', ...options } as OpenAIRecoveryOptions);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('an unknown key anywhere in the options throws InvalidOptionsError at construction', () => {
  it.each([
    [
      { policies: { refund_payment: { sideEffect: true } } },
      'policies.refund_payment.sideEffect',
      'sideEffects',
    ],
    [{ defaultPolicy: { timeoutMS: 5 } }, 'defaultPolicy.timeoutMS', 'timeoutMs'],
    [{ retry: { maxAttempt: 2 } }, 'retry.maxAttempt', 'maxAttempts'],
    [{ scope: { alow: ['x'] } }, 'scope.alow', 'allow'],
    [{ polices: {} }, 'polices', 'policies'],
    [{ warns: false }, 'warns', 'warn'],
    // The AI SDK adapter's own options mean nothing here: unknown, not silently ignored.
    [{ failureMode: 'throw' }, 'failureMode', undefined],
    [{ escalation: 'approval' }, 'escalation', undefined],
  ])('%j → field %s', (options, field, meant) => {
    const error = construct(options);
    expect(InvalidOptionsError.isInstance(error)).toBe(true);
    expect((error as InvalidOptionsError).field).toBe(field);
    expect((error as InvalidOptionsError).suggestion).toBe(meant);
    if (meant) expect((error as Error).message).toContain(`did you mean "${meant}"?`);
  });

  it('warn, tracer and defaultPolicy are known', () => {
    expect(
      construct({
        warn: false,
        tracer: { startSpan: () => ({}) },
        defaultPolicy: { sideEffects: false },
      }),
    ).toBeUndefined();
  });
});

describe('a policy that names no defined tool is reported', () => {
  let warn: MockInstance<typeof console.warn>;
  beforeEach(() => {
    warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
  });
  afterEach(() => warn.mockRestore());
  const afterTools = () => new Promise((resolve) => setImmediate(resolve));
  const refund = {
    inputSchema: z.object({ paymentId: z.string() }),
    execute: () => 'refunded',
  };

  it('a policy.unused event with the name meant and one console line; warn: false keeps only the event', async () => {
    for (const quiet of [false, true]) {
      warn.mockClear();
      const events: RecoveryEvent[] = [];
      const recovery = createRecovery({
        runId: 'run-so',
        warn: !quiet,
        policies: { refund_paymnet: { sideEffects: true } },
        onEvent: (event) => events.push(event),
      });
      recovery.tools({ refund_payment: refund });
      await afterTools();
      expect(events.filter((e) => e.type === 'policy.unused')).toEqual([
        {
          type: 'policy.unused',
          runId: 'run-so',
          tool: 'refund_paymnet',
          suggestion: 'refund_payment',
          at: expect.any(Number),
        },
      ]);
      if (quiet) expect(warn).not.toHaveBeenCalled();
      else {
        expect(warn).toHaveBeenCalledTimes(1);
        expect(String(warn.mock.calls[0]![0])).toMatch(
          /^recourse: policies\.refund_paymnet names no defined tool \(did you mean "refund_payment"\?\)[^\n]*$/,
        );
      }
    }
  });

  it('tools defined in several calls count together; a policy is reported once', async () => {
    const events: RecoveryEvent[] = [];
    const recovery = createRecovery({
      runId: 'run-so',
      policies: {
        refund_payment: { sideEffects: true },
        lookup: { sideEffects: false },
        audit_log: { sideEffects: true },
      },
      onEvent: (event) => events.push(event),
    });
    recovery.tools({ refund_payment: refund });
    recovery.tools({ lookup: refund });
    await afterTools();
    recovery.tools({ refund_payment: refund });
    await afterTools();
    expect(
      events.filter((e) => e.type === 'policy.unused').map((e) => 'tool' in e && e.tool),
    ).toEqual(['audit_log']);
    expect(warn).toHaveBeenCalledTimes(1);
  });
});
