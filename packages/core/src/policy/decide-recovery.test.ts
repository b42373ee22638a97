import { describe, expect, it } from 'vitest';
import type { Decision, DecisionState, FailureClass } from '../types.js';
import { type DecideOptions, decideRecovery } from './decide-recovery.js';

// The decision table's inputs as failure classes: transient → TRANSIENT, schema broken →
// VALIDATION, otherwise UNKNOWN_OUTCOME with side effects and PERMANENT without.
function tableRow(row: {
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

describe('the decision table, row by row', () => {
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
    const decision = decideRecovery(tableRow(row), { random: fixedRandom });
    expect(decision.action).toBe(action);
    expect(decision.code).toBe(code);
    expect(decision.reason.length).toBeGreaterThan(10);
    expect(decision.terminal).toBe(action === 'ABORT');
  });

  it('poison beats replay even when a reconcile exists', () => {
    const state = { ...tableRow(rows[7][1]), reconcilable: true };
    expect(decideRecovery(state).action).toBe('ABORT');
  });

  it('a write without checkpoint never retries, however transient the fault looks', () => {
    const state = tableRow({ transient: true, sideEffects: true, repairAttempts: 0, attempts: 1 });
    expect(decideRecovery(state)).toMatchObject({ action: 'ABORT', code: 'RECONCILE_BY_HAND' });
  });
});

describe('the retry matrix: each failure class by what it gets', () => {
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
    expect(decision.delayMs).toBe(150); // equal jitter over 200 ms with random 0.5
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

describe('every rule beyond the decision table, as rows of the pure function', () => {
  const base: DecisionState = {
    tool: 'tool',
    failureClass: 'TRANSIENT',
    sideEffects: false,
    attempts: 1,
    repairAttempts: 0,
  };
  const rows: [string, Partial<DecisionState>, DecideOptions, Partial<Decision>][] = [
    // Ownership and identity facts come before doubt: nothing is re-sent by this call.
    [
      'another worker took the write over',
      {
        failureClass: 'UNKNOWN_OUTCOME',
        code: 'LEASE_LOST',
        sideEffects: true,
        reconcilable: true,
      },
      {},
      { action: 'REOBSERVE', code: 'LEASE_LOST', terminal: false },
    ],
    [
      'the ledger could not say how often a failure was repaired: it may be poison, so stop',
      { failureClass: 'VALIDATION', repairsUnknown: true },
      {},
      { action: 'ABORT', code: 'LEDGER_UNAVAILABLE', terminal: true },
    ],
    [
      'an unknown repair count beats a reconcile too (the poison rule does)',
      {
        failureClass: 'UNKNOWN_OUTCOME',
        sideEffects: true,
        reconcilable: true,
        repairsUnknown: true,
      },
      {},
      { action: 'ABORT', code: 'LEDGER_UNAVAILABLE' },
    ],
    [
      'an unknown repair count does not matter to a transient fault',
      { failureClass: 'TRANSIENT', repairsUnknown: true },
      {},
      { action: 'RETRY' },
    ],
    [
      'an unknown repair count does not hide a denial',
      { failureClass: 'AUTHORIZATION', repairsUnknown: true },
      {},
      { action: 'ABORT', code: 'AUTHORIZATION_DENIED' },
    ],
    [
      'the same write is in flight elsewhere',
      { failureClass: 'UNKNOWN_OUTCOME', code: 'IN_FLIGHT' },
      {},
      { action: 'REOBSERVE', code: 'IN_FLIGHT' },
    ],
    [
      'a completed write whose result was not stored',
      { failureClass: 'UNKNOWN_OUTCOME', code: 'RESULT_NOT_STORED' },
      {},
      { action: 'REOBSERVE', code: 'RESULT_NOT_STORED' },
    ],
    [
      'the key belongs to another payload',
      { failureClass: 'PERMANENT', code: 'IDEMPOTENCY_CONFLICT', hasFallback: true },
      {},
      { action: 'REPLAN', code: 'IDEMPOTENCY_CONFLICT' },
    ],
    [
      'a reconcile read that failed: in doubt, by hand',
      {
        failureClass: 'UNKNOWN_OUTCOME',
        sideEffects: true,
        reconcilable: true,
        reconciled: 'failed',
      },
      {},
      { action: 'ABORT', code: 'RECONCILE_FAILED', terminal: true },
    ],
    [
      'reconciled as not happened: sent again behind the key',
      { failureClass: 'UNKNOWN_OUTCOME', reconciled: 'not_happened' },
      {},
      { action: 'RETRY', code: 'RETRY' },
    ],
    [
      'reconciled as not happened, attempts spent',
      { failureClass: 'UNKNOWN_OUTCOME', reconciled: 'not_happened', attempts: 3 },
      {},
      { action: 'ABORT', code: 'ATTEMPTS_EXHAUSTED' },
    ],
    [
      'a replay within its attempts',
      { failureClass: 'UNKNOWN_OUTCOME', sideEffects: true, checkpoint: 'k', attempts: 2 },
      {},
      { action: 'REPLAY', code: 'REPLAY' },
    ],
    [
      'a replay past its attempts stays in doubt',
      { failureClass: 'UNKNOWN_OUTCOME', sideEffects: true, checkpoint: 'k', attempts: 3 },
      {},
      { action: 'ABORT', code: 'ATTEMPTS_EXHAUSTED' },
    ],
    [
      'a replay never falls back',
      {
        failureClass: 'UNKNOWN_OUTCOME',
        sideEffects: true,
        checkpoint: 'k',
        attempts: 3,
        hasFallback: true,
      },
      {},
      { action: 'ABORT', code: 'ATTEMPTS_EXHAUSTED' },
    ],
    [
      'the ledger is down: retried like a transient fault',
      { code: 'LEDGER_UNAVAILABLE' },
      {},
      { action: 'RETRY' },
    ],
    [
      'the ledger stays down: the write is not sent',
      { code: 'LEDGER_UNAVAILABLE', attempts: 3, hasFallback: true },
      {},
      { action: 'ABORT', code: 'LEDGER_UNAVAILABLE' },
    ],
    [
      'attempts spent with a fallback: the fallback, explicitly',
      { attempts: 3, hasFallback: true },
      {},
      { action: 'FALLBACK', code: 'FALLBACK' },
    ],
    [
      'the dependency refused the retry, no probe known',
      { retryBudgetExhausted: true },
      {},
      { action: 'ABORT', code: 'DEPENDENCY_RETRY_BUDGET_EXHAUSTED' },
    ],
    [
      'the dependency refused the retry: wait for its next probe',
      { retryBudgetExhausted: true, retryBudgetWaitMs: 700 },
      { maxElapsedMs: 10_000 },
      { action: 'RETRY', delayMs: 700 },
    ],
    [
      'the next probe is beyond the time budget',
      { retryBudgetExhausted: true, retryBudgetWaitMs: 700, elapsedMs: 9_500 },
      { maxElapsedMs: 10_000 },
      { action: 'ABORT', code: 'DEPENDENCY_RETRY_BUDGET_EXHAUSTED' },
    ],
    [
      'a backoff that would end past the time budget',
      { attempts: 2, elapsedMs: 9_900 },
      { maxElapsedMs: 10_000 },
      { action: 'ABORT', code: 'TIME_BUDGET_EXHAUSTED' },
    ],
    [
      'a Retry-After longer than the time left',
      { retryAfterMs: 5_000, elapsedMs: 8_000 },
      { maxElapsedMs: 10_000 },
      { action: 'ABORT', code: 'RETRY_AFTER_TOO_LONG' },
    ],
    [
      'a Retry-After that fits the time left is honoured',
      { retryAfterMs: 1_500, elapsedMs: 8_000 },
      { maxElapsedMs: 10_000 },
      { action: 'RETRY' },
    ],
    [
      'more attempts than the table default when the runtime allows them',
      { attempts: 4 },
      { maxAttempts: 5 },
      { action: 'RETRY' },
    ],
    [
      "poison under onPoison 'replan': quarantined, the run goes on",
      { failureClass: 'VALIDATION', repairAttempts: 2 },
      { onPoison: 'replan' },
      { action: 'REPLAN', code: 'POISON', terminal: false },
    ],
    [
      'authorization beats a fallback and a reconcile',
      { failureClass: 'AUTHORIZATION', hasFallback: true, sideEffects: true, reconcilable: true },
      {},
      { action: 'ABORT', code: 'AUTHORIZATION_DENIED' },
    ],
  ];
  it.each(rows)('%s', (_label, facts, options, expected) => {
    expect(
      decideRecovery({ ...base, ...facts }, { random: fixedRandom, ...options }),
    ).toMatchObject(expected);
  });
});

describe("a run with a deadline spends the run's time, not the call's", () => {
  const base: DecisionState = {
    tool: 'tool',
    failureClass: 'TRANSIENT',
    sideEffects: false,
    attempts: 1,
    repairAttempts: 0,
  };
  const budgets: DecideOptions = { maxAttempts: 5, maxElapsedMs: 30_000, random: fixedRandom };
  const rows: [string, Partial<DecisionState>, Partial<Decision>][] = [
    [
      'a 40 s Retry-After that fits in the 100 s left is waited, past the 30 s call budget',
      { retryAfterMs: 40_000, timeLeftMs: 100_000, elapsedMs: 1_000 },
      { action: 'RETRY', delayMs: 40_000 },
    ],
    [
      'a 90 s Retry-After beyond the 60 s backoff cap is waited when the run has 100 s left',
      { retryAfterMs: 90_000, timeLeftMs: 100_000 },
      { action: 'RETRY', delayMs: 90_000 },
    ],
    [
      'a 40 s Retry-After with 30 s left: not now',
      { retryAfterMs: 40_000, timeLeftMs: 30_000 },
      { action: 'ABORT', code: 'RETRY_AFTER_TOO_LONG' },
    ],
    [
      'a burst that outlasts five attempts is retried while the backoff fits the time left',
      { attempts: 7, timeLeftMs: 90_000, elapsedMs: 45_000 },
      { action: 'RETRY', terminal: false },
    ],
    [
      'the backoff outgrew the 30 s left: one more try halfway through them',
      { attempts: 7, timeLeftMs: 30_000 },
      { action: 'RETRY', delayMs: 15_000 },
    ],
    [
      'the backoff is more than twice the time left: stop',
      { attempts: 7, timeLeftMs: 20_000 },
      { action: 'ABORT', code: 'TIME_BUDGET_EXHAUSTED' },
    ],
    [
      "a call waits for the circuit's next probe while the run has time, past the call budget",
      {
        retryBudgetExhausted: true,
        retryBudgetWaitMs: 2_000,
        timeLeftMs: 50_000,
        elapsedMs: 40_000,
      },
      { action: 'RETRY', delayMs: 2_000 },
    ],
    [
      'a probe later than the time left: stop',
      { retryBudgetExhausted: true, retryBudgetWaitMs: 2_000, timeLeftMs: 1_500 },
      { action: 'ABORT', code: 'DEPENDENCY_RETRY_BUDGET_EXHAUSTED' },
    ],
    [
      'a ledger that cannot be reached still stops at the attempts',
      { code: 'LEDGER_UNAVAILABLE', attempts: 5, timeLeftMs: 100_000 },
      { action: 'ABORT', code: 'LEDGER_UNAVAILABLE' },
    ],
    [
      'a write in doubt is still never re-sent without a key or a reconcile',
      { failureClass: 'UNKNOWN_OUTCOME', sideEffects: true, timeLeftMs: 100_000 },
      { action: 'ABORT', code: 'RECONCILE_BY_HAND' },
    ],
    [
      'a replay behind the key is bounded by the time left too',
      { sideEffects: true, checkpoint: 'key-1', attempts: 6, timeLeftMs: 100_000 },
      { action: 'REPLAY' },
    ],
  ];
  it.each(rows)('%s', (_label, facts, expected) => {
    expect(decideRecovery({ ...base, ...facts }, budgets)).toMatchObject(expected);
  });

  it('without a deadline the same burst ends at the attempts (the table row holds)', () => {
    expect(decideRecovery({ ...base, attempts: 7, elapsedMs: 45_000 }, budgets)).toMatchObject({
      action: 'ABORT',
      code: 'ATTEMPTS_EXHAUSTED',
    });
  });
});
