import { type RandomSource, systemRandom } from '../clock.js';
import type { Decision, DecisionCode, DecisionState, RecoveryBudgets } from '../types.js';
import { type BackoffOptions, computeBackoff, validateBackoff } from './backoff.js';

export const defaultMaxAttempts = 3;
export const defaultRepairBudget = 2;

export interface DecideOptions extends RecoveryBudgets {
  backoff?: BackoffOptions | undefined;
  random?: RandomSource | undefined;
  /** What a poison step does to the run: 'stop' (default) aborts, 'replan' asks for a new plan. */
  onPoison?: 'stop' | 'replan' | undefined;
}

/**
 * The policy: every rule of recovery, in one pure function. Asks, in this order, and
 * stops at the first that applies (the order matters more than the rules):
 *
 * 1. not TRANSIENT and repairs spent → ABORT (poison beats everything, replay included)
 * 2. AUTHORIZATION → ABORT (blocked; never a retry, a repair or another route)
 * 3. another worker owns the write, or holds its result → REOBSERVE (send nothing)
 * 4. the key belongs to another payload → REPLAN
 * 5. a reconcile read failed → ABORT (the write stays in doubt)
 * 6. in doubt → RECONCILE, else REPLAY behind the key, else ABORT (reconcile by hand)
 * 7. proven not to have happened, or TRANSIENT → RETRY within the attempts, the
 *    dependency's budget and the server's Retry-After; else FALLBACK or ABORT
 * 8. STALE_STATE → REOBSERVE
 * 9. VALIDATION → REPAIR
 * 10. UNKNOWN_OUTCOME → ABORT (nothing can prove what happened)
 * 11. PERMANENT → FALLBACK when the tool has one, else REPLAN
 */
export function decideRecovery(state: DecisionState, options: DecideOptions = {}): Decision {
  const maxAttempts = options.maxAttempts ?? defaultMaxAttempts;
  const repairBudget = options.repairBudget ?? defaultRepairBudget;
  const { failureClass, code } = state;

  if (failureClass !== 'TRANSIENT' && state.repairAttempts >= repairBudget) {
    return options.onPoison === 'replan'
      ? next('REPLAN', 'POISON', 'poison step: this action is quarantined; the plan must change')
      : abort('POISON', 'poison step: fingerprint survived the repair budget');
  }
  if (failureClass === 'AUTHORIZATION') {
    return abort(
      'AUTHORIZATION_DENIED',
      'authorization denied: stop, do not look for another route',
    );
  }
  if (code === 'LEASE_LOST' || code === 'IN_FLIGHT' || code === 'RESULT_NOT_STORED') {
    return next('REOBSERVE', code, ownedElsewhere[code]);
  }
  if (code === 'IDEMPOTENCY_CONFLICT') {
    return next(
      'REPLAN',
      'IDEMPOTENCY_CONFLICT',
      'the idempotency key belongs to a different operation',
    );
  }
  if (state.reconciled === 'failed') {
    return abort('RECONCILE_FAILED', 'the reconcile read failed, so the write stays in doubt');
  }
  if (state.sideEffects) {
    if (state.reconcilable) {
      return next(
        'RECONCILE',
        'RECONCILE',
        'write outcome unknown: read the downstream state before anything is re-sent',
      );
    }
    if (state.checkpoint) {
      if (state.attempts >= maxAttempts) {
        return abort('ATTEMPTS_EXHAUSTED', 'the write could not be completed within its attempts');
      }
      const replay = withDelay(
        next('REPLAY', 'REPLAY', `re-run behind idempotency key ${state.checkpoint}`),
        state,
        options,
      );
      return replay.delayMs === undefined ? tooLong(state) : replay;
    }
    return abort('RECONCILE_BY_HAND', 'side effects with no checkpoint: reconcile by hand');
  }
  if (failureClass === 'TRANSIENT' || state.reconciled === 'not_happened') {
    return decideRetry(state, options, maxAttempts);
  }
  if (failureClass === 'STALE_STATE') {
    return next(
      'REOBSERVE',
      'REOBSERVE',
      'the state changed since it was observed: re-read it, then re-evaluate',
    );
  }
  if (failureClass === 'VALIDATION') {
    return next('REPAIR', 'REPAIR', 'transport fine, input wrong: repair the arguments');
  }
  if (failureClass === 'UNKNOWN_OUTCOME') {
    return abort(
      'RECONCILE_BY_HAND',
      'outcome unknown and nothing can prove what happened: reconcile by hand',
    );
  }
  if (state.hasFallback) return fallback('the action cannot succeed as asked');
  return next('REPLAN', 'REPLAN', 'the action cannot succeed as asked: the plan needs to change');
}

const ownedElsewhere = {
  LEASE_LOST: 'the claim was taken over by another worker; its result will be the result',
  IN_FLIGHT: 'another worker holds this write; wait for its result',
  RESULT_NOT_STORED: 'the write completed but its result was not stored: read the state',
} as const;

/** A retry of a call that provably changed nothing: within attempts, budget and hints. */
function decideRetry(state: DecisionState, options: DecideOptions, maxAttempts: number): Decision {
  const stopped = (code: DecisionCode, reason: string) =>
    state.hasFallback && code !== 'LEDGER_UNAVAILABLE' ? fallback(reason) : abort(code, reason);
  if (state.attempts >= maxAttempts) {
    return state.code === 'LEDGER_UNAVAILABLE'
      ? stopped('LEDGER_UNAVAILABLE', 'the ledger could not be reached; the write was not sent')
      : stopped(
          'ATTEMPTS_EXHAUSTED',
          'the call ran out of attempts; a prompt edit will not fix a dead endpoint',
        );
  }
  if (state.retryBudgetExhausted) {
    return stopped(
      'DEPENDENCY_RETRY_BUDGET_EXHAUSTED',
      'too many failures against this dependency: retries stopped to avoid a retry storm',
    );
  }
  const retry = withDelay(
    next('RETRY', 'RETRY', 'transport fault, nothing landed: retry after a backoff'),
    state,
    options,
  );
  if (retry.delayMs === undefined) return state.hasFallback ? fallback('not now') : tooLong(state);
  return retry;
}

function tooLong(state: DecisionState): Decision {
  return abort(
    'RETRY_AFTER_TOO_LONG',
    `the server asked to wait ${state.retryAfterMs} ms, beyond the backoff cap: not retrying now`,
  );
}

/** The decision with its jittered backoff, or without `delayMs` when the server's hint is too long. */
function withDelay(decision: Decision, state: DecisionState, options: DecideOptions): Decision {
  const backoff = computeBackoff(
    state.attempts,
    validateBackoff(options.backoff ?? {}),
    options.random ?? systemRandom,
    state.retryAfterMs,
  );
  return backoff.retry ? { ...decision, delayMs: backoff.delayMs } : decision;
}

function fallback(why: string): Decision {
  return next('FALLBACK', 'FALLBACK', `${why}: use the declared fallback, marked degraded`);
}

function abort(code: DecisionCode, reason: string): Decision {
  return { action: 'ABORT', code, reason, terminal: true };
}

function next(action: Decision['action'], code: DecisionCode, reason: string): Decision {
  return { action, code, reason, terminal: false };
}
