import { type AiSdkRecoveryOptions, createRecovery } from '@recourse/ai-sdk';
import { InvalidOptionsError } from '@recourse/core';
import { describe, expect, it } from 'vitest';

/** Options as plain JavaScript passes them: no type checker between the typo and recourse. */
function construct(options: Record<string, unknown>): unknown {
  try {
    createRecovery({ runId: 'run-o1', ...options } as AiSdkRecoveryOptions);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('an unknown key anywhere in the options throws InvalidOptionsError at construction', () => {
  const typos: [Record<string, unknown>, string, string | undefined][] = [
    // inside a policy: the typo that would turn a write into a tool without its policy
    [
      { policies: { refund_payment: { sideEffect: true } } },
      'policies.refund_payment.sideEffect',
      'sideEffects',
    ],
    [
      { policies: { refund_payment: { idempotant: true } } },
      'policies.refund_payment.idempotant',
      'idempotent',
    ],
    [
      { policies: { refund_payment: { reconcil: () => ({ happened: false }) } } },
      'policies.refund_payment.reconcil',
      'reconcile',
    ],
    [{ policies: { slow: { timeout: 1_000 } } }, 'policies.slow.timeout', 'timeoutMs'],
    [{ defaultPolicy: { sideEfects: false } }, 'defaultPolicy.sideEfects', 'sideEffects'],
    // the top level, the core's keys and the adapter's own
    [{ polices: {} }, 'polices', 'policies'],
    [{ retyr: { maxAttempts: 2 } }, 'retyr', 'retry'],
    [{ defaultPolicies: {} }, 'defaultPolicies', 'defaultPolicy'],
    [{ failureMod: 'throw' }, 'failureMod', 'failureMode'],
    [{ escalaton: 'approval' }, 'escalaton', 'escalation'],
    [{ warns: false }, 'warns', 'warn'],
    [{ onEvents: () => {} }, 'onEvents', 'onEvent'],
    // inside retry and scope
    [{ retry: { maxAttempt: 2 } }, 'retry.maxAttempt', 'maxAttempts'],
    [{ retry: { timeoutMS: 500 } }, 'retry.timeoutMS', 'timeoutMs'],
    [{ scope: { alow: ['payment:*'] } }, 'scope.alow', 'allow'],
    [{ scope: { denny: ['payment:p-1'] } }, 'scope.denny', 'deny'],
    // nothing close: no suggestion
    [{ verbose: true }, 'verbose', undefined],
  ];
  it.each(typos)('%j → field %s', (options, field, meant) => {
    const error = construct(options);
    expect(InvalidOptionsError.isInstance(error)).toBe(true);
    const invalid = error as InvalidOptionsError;
    expect(invalid.field).toBe(field);
    expect(invalid.message).toContain(field);
    expect(invalid.suggestion).toBe(meant);
    if (meant) expect(invalid.message).toContain(`did you mean "${meant}"?`);
    else expect(invalid.message).not.toContain('did you mean');
  });

  it("the adapter's own keys, tracer and defaultPolicy are known", () => {
    expect(
      construct({
        failureMode: 'throw',
        escalation: 'approval',
        onDenial: 'continue',
        warn: false,
        tracer: { startSpan: () => ({}) },
        defaultPolicy: { sideEffects: false },
        retry: { maxAttempts: 2, timeoutMs: 1_000 },
        scope: { allow: ['payment:*'], deny: [] },
      }),
    ).toBeUndefined();
  });

  it("values of the adapter's own keys are checked too", () => {
    expect((construct({ failureMode: 'raise' }) as InvalidOptionsError).field).toBe('failureMode');
    expect((construct({ escalation: true }) as InvalidOptionsError).field).toBe('escalation');
    expect((construct({ warn: 'no' }) as InvalidOptionsError).field).toBe('warn');
  });
});
