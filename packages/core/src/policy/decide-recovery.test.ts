import { describe, expect, it } from 'vitest';
import type { DecisionState, FailureClass } from '../types.js';
import { decideRecovery } from './decide-recovery.js';

// The seed's inputs mapped as CONTRACT.md says: transient → TRANSIENT, schema broken →
// VALIDATION, otherwise UNKNOWN_OUTCOME with side effects and PERMANENT without.
function seedRow(row: {
  transient: boolean;
  schemaOk?: boolean;
  sideEffects: boolean;
  checkpoint?: string;
  repairAttempts: number;
  attempts: number;
}): DecisionState {
  const failureClass: FailureClass = row.transient
    ? 'TRANSIENT'
    : row.schemaOk === false
      ? 'VALIDATION'
      : row.sideEffects
        ? 'UNKNOWN_OUTCOME'
        : 'PERMANENT';
  return {
    tool: 'step',
    failureClass,
    sideEffects: row.sideEffects,
    checkpoint: row.checkpoint,
    attempts: row.attempts,
    repairAttempts: row.repairAttempts,
  };
}

const fixedRandom = () => 0.5;

describe("the seed's decision table (MISSION.md), row by row", () => {
  const rows = [
    [
      'transient read',
      { transient: true, sideEffects: false, repairAttempts: 0, attempts: 1 },
      'RETRY',
      'RETRY',
    ],
    [
      'transport exhausted',
      { transient: true, sideEffects: false, repairAttempts: 0, attempts: 3 },
      'ABORT',
      'ATTEMPTS_EXHAUSTED',
    ],
    [
      'write with checkpoint',
      { transient: true, sideEffects: true, checkpoint: 'ckpt-17', repairAttempts: 0, attempts: 1 },
      'REPLAY',
      'REPLAY',
    ],
    [
      'write without checkpoint',
      { transient: false, sideEffects: true, repairAttempts: 0, attempts: 1 },
      'ABORT',
      'RECONCILE_BY_HAND',
    ],
    [
      'contract violation',
      { transient: false, schemaOk: false, sideEffects: false, repairAttempts: 0, attempts: 1 },
      'REPAIR',
      'REPAIR',
    ],
    [
      'repair once more',
      { transient: false, schemaOk: false, sideEffects: false, repairAttempts: 1, attempts: 1 },
      'REPAIR',
      'REPAIR',
    ],
    [
      'repair exhausted',
      { transient: false, schemaOk: false, sideEffects: false, repairAttempts: 2, attempts: 1 },
      'ABORT',
      'POISON',
    ],
    [
      'poison beats replay',
      {
        transient: false,
        sideEffects: true,
        checkpoint: 'ckpt-17',
        repairAttempts: 2,
        attempts: 1,
      },
      'ABORT',
      'POISON',
    ],
  ] as const;

  it.each(rows)('%s', (_name, row, action, code) => {
    const decision = decideRecovery(seedRow(row), { random: fixedRandom });
    expect(decision.action).toBe(action);
    expect(decision.code).toBe(code);
    expect(decision.reason.length).toBeGreaterThan(10);
    expect(decision.terminal).toBe(action === 'ABORT');
  });

  it('poison beats replay even when a reconcile exists', () => {
    const state = { ...seedRow(rows[7][1]), reconcilable: true };
    expect(decideRecovery(state).action).toBe('ABORT');
  });

  it('a write without checkpoint never retries, however transient the fault looks', () => {
    const state = seedRow({ transient: true, sideEffects: true, repairAttempts: 0, attempts: 1 });
    expect(decideRecovery(state)).toMatchObject({ action: 'ABORT', code: 'RECONCILE_BY_HAND' });
  });
});

describe("the seed's retry matrix (seed 004)", () => {
  const state = (
    failureClass: FailureClass,
    extra: Partial<DecisionState> = {},
  ): DecisionState => ({
    tool: 'tool',
    failureClass,
    sideEffects: false,
    attempts: 1,
    repairAttempts: 0,
    ...extra,
  });

  it('transient timeout, read-only → backoff + retry', () => {
    const decision = decideRecovery(state('TRANSIENT'), { random: fixedRandom });
    expect(decision.action).toBe('RETRY');
    expect(decision.delayMs).toBe(100); // full jitter over 200 ms with random 0.5
  });

  it('rate limit → retry later, honouring Retry-After', () => {
    const decision = decideRecovery(state('TRANSIENT', { retryAfterMs: 1500 }), {
      random: () => 0,
    });
    expect(decision).toMatchObject({ action: 'RETRY' });
    expect(decision.delayMs).toBeGreaterThanOrEqual(1500);
  });

  it('a Retry-After beyond the cap means "not now", never a silent long sleep', () => {
    const decision = decideRecovery(state('TRANSIENT', { retryAfterMs: 600_000 }));
    expect(decision).toMatchObject({ action: 'ABORT', code: 'RETRY_AFTER_TOO_LONG' });
  });

  it('invalid argument → repair arguments', () => {
    expect(decideRecovery(state('VALIDATION')).action).toBe('REPAIR');
  });

  it('not authorized → stop, with no repair, retry or other route', () => {
    for (const extra of [
      {},
      { sideEffects: true, checkpoint: 'k', reconcilable: true },
      { hasFallback: true },
    ]) {
      expect(decideRecovery(state('AUTHORIZATION', extra))).toMatchObject({
        action: 'ABORT',
        code: 'AUTHORIZATION_DENIED',
        terminal: true,
      });
    }
  });

  it('stale state → re-observe, not retry', () => {
    expect(decideRecovery(state('STALE_STATE')).action).toBe('REOBSERVE');
  });

  it('precondition failed / semantic wrong path → replan, or the declared fallback', () => {
    expect(decideRecovery(state('PERMANENT')).action).toBe('REPLAN');
    expect(decideRecovery(state('PERMANENT', { hasFallback: true })).action).toBe('FALLBACK');
  });

  it('unknown write outcome → reconcile when possible, else replay behind the key, else abort', () => {
    const write = { sideEffects: true };
    expect(
      decideRecovery(state('UNKNOWN_OUTCOME', { ...write, reconcilable: true, checkpoint: 'k' }))
        .action,
    ).toBe('RECONCILE');
    expect(decideRecovery(state('UNKNOWN_OUTCOME', { ...write, checkpoint: 'k' })).action).toBe(
      'REPLAY',
    );
    expect(decideRecovery(state('UNKNOWN_OUTCOME', write)).code).toBe('RECONCILE_BY_HAND');
  });

  it('repeated identical failures stop after the budget whatever their class', () => {
    for (const failureClass of [
      'VALIDATION',
      'STALE_STATE',
      'PERMANENT',
      'UNKNOWN_OUTCOME',
    ] as const) {
      expect(decideRecovery(state(failureClass, { repairAttempts: 2 })).code).toBe('POISON');
      expect(
        decideRecovery(state(failureClass, { repairAttempts: 1 }), { repairBudget: 1 }).code,
      ).toBe('POISON');
    }
  });

  it('transient faults are never poison: they have their own budget', () => {
    expect(decideRecovery(state('TRANSIENT', { repairAttempts: 9 })).action).toBe('RETRY');
  });

  it('an exhausted dependency retry budget stops retries with a reason', () => {
    expect(
      decideRecovery(state('TRANSIENT', { retryBudgetExhausted: true } as Partial<DecisionState>)),
    ).toMatchObject({
      action: 'ABORT',
      code: 'DEPENDENCY_RETRY_BUDGET_EXHAUSTED',
    });
  });

  it('maxAttempts is configurable', () => {
    expect(decideRecovery(state('TRANSIENT', { attempts: 3 }), { maxAttempts: 5 }).action).toBe(
      'RETRY',
    );
    expect(decideRecovery(state('TRANSIENT', { attempts: 1 }), { maxAttempts: 1 }).action).toBe(
      'ABORT',
    );
  });
});

describe('Retry-After at the edges of the cap', () => {
  const transient = (retryAfterMs: number): DecisionState => ({
    tool: 'search',
    failureClass: 'TRANSIENT',
    sideEffects: false,
    attempts: 1,
    repairAttempts: 0,
    retryAfterMs,
  });

  it('honours a common 60 s rate-limit hint', () => {
    const decision = decideRecovery(transient(60_000));
    expect(decision.action).toBe('RETRY');
    expect(decision.delayMs).toBeGreaterThanOrEqual(60_000);
  });

  it('does not sleep silently through a 10-minute hint', () => {
    expect(decideRecovery(transient(600_001))).toMatchObject({
      action: 'ABORT',
      code: 'RETRY_AFTER_TOO_LONG',
    });
  });

  it('a caller that accepts longer waits raises the cap', () => {
    const decision = decideRecovery(transient(600_000), { backoff: { maxDelayMs: 900_000 } });
    expect(decision.delayMs).toBeGreaterThanOrEqual(600_000);
  });
});
