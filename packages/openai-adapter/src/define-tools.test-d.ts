import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod-v3';
import { createRecovery } from './create-recovery.js';
import { defineTools } from './define-tools.js';

it('infers execute input from zod 4, zod 3 and falls back to a record for JSON Schema', () => {
  defineTools({
    refund: {
      inputSchema: z.object({ paymentId: z.string(), amount: z.number() }),
      execute: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ paymentId: string; amount: number }>();
      },
    },
    legacy: {
      inputSchema: z3.object({ q: z3.string() }),
      execute: (input, context) => {
        expectTypeOf(input).toEqualTypeOf<{ q: string }>();
        expectTypeOf(context.idempotencyKey).toBeString();
      },
    },
    plain: {
      inputSchema: { type: 'object', properties: {} },
      execute: (input) => {
        expectTypeOf(input).toEqualTypeOf<Record<string, unknown>>();
      },
    },
  });
});

describe('a policy given with its tool', () => {
  it('is typed by the tool’s input', () => {
    const recovery = createRecovery({ runId: 'types-policy' });
    recovery.tools({
      refund_payment: {
        inputSchema: z.object({ paymentId: z.string() }),
        execute: async () => 'ok',
        policy: {
          sideEffects: true,
          resource: (input) => {
            expectTypeOf(input).toEqualTypeOf<{ paymentId: string }>();
            return `payment:${input.paymentId}`;
          },
        },
      },
    });
    expectTypeOf(recovery.runtime.policyFor('refund_payment').sideEffects).toEqualTypeOf<
      boolean | undefined
    >();
  });
});
