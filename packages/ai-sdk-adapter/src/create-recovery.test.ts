import { createRecovery } from '@recourse/ai-sdk';
import { InvalidOptionsError, type RecoveryOptions } from '@recourse/core';
import { describe, expect, it } from 'vitest';

function fieldOf(options: unknown): string | undefined {
  try {
    createRecovery(options as RecoveryOptions);
  } catch (error) {
    if (error instanceof InvalidOptionsError) return error.field;
    throw error;
  }
  return undefined;
}

describe('createRecovery validates its options at construction', () => {
  it.each([
    [{}, 'runId'],
    [{ runId: '' }, 'runId'],
    [{ runId: 42 }, 'runId'],
    [{ runId: 'x'.repeat(200) }, 'runId'],
    [{ runId: 'r', policies: { refund: { sideEffects: 'yes' } } }, 'policies.refund.sideEffects'],
    [{ runId: 'r', policies: { refund: { reconcile: true } } }, 'policies.refund.reconcile'],
    [
      { runId: 'r', policies: { refund: { sideEffects: false, idempotent: true } } },
      'policies.refund.idempotent',
    ],
    [{ runId: 'r', repairBudget: -1 }, 'repairBudget'],
    [{ runId: 'r', onDenial: 'ignore' }, 'onDenial'],
    [{ runId: 'r', retry: { maxAttempts: 0 } }, 'retry.maxAttempts'],
  ])('%j → InvalidOptionsError naming %s', (options, field) => {
    expect(fieldOf(options)).toBe(field);
  });

  it('the message names the field too', () => {
    expect(() => createRecovery({ runId: '' })).toThrow(/`runId`/);
  });

  it('accepts the minimal options', () => {
    const recovery = createRecovery({ runId: 'run-1842' });
    expect(recovery.runtime.runId).toBe('run-1842');
    expect(recovery.outcome().status).toBe('COMPLETED');
  });
});

describe('policies given with the tools', () => {
  const refund = {
    description: 'refund',
    execute: async (input: { id: string }) => `refunded ${input.id}`,
  };

  it('apply over the options’ policy field by field', () => {
    const recovery = createRecovery({
      runId: 'run-p1',
      warn: false,
      policies: { refund_payment: { sideEffects: false, maxAttempts: 2 } },
    });
    recovery.tools({ refund_payment: refund }, { refund_payment: { sideEffects: true } });
    expect(recovery.runtime.policyFor('refund_payment')).toMatchObject({
      sideEffects: true,
      maxAttempts: 2,
    });
  });

  it('are checked like options: a typo, or a tool not in the set, throws naming the field', () => {
    const recovery = createRecovery({ runId: 'run-p2' });
    expect(() =>
      recovery.tools({ refund_payment: refund }, { refund_payment: { sideEffect: true } as never }),
    ).toThrow(/policies\.refund_payment\.sideEffect.*did you mean "sideEffects"/);
    expect(() =>
      recovery.tools({ refund_payment: refund }, { refund_paymnet: {} } as never),
    ).toThrow(InvalidOptionsError);
  });
});
