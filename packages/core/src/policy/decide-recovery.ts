import { type RandomSource, systemRandom } from '../clock.js';
import type { Decision, DecisionState, RecoveryBudgets } from '../types.js';
import { type BackoffOptions, computeBackoff, validateBackoff } from './backoff.js';

export const defaultMaxAttempts = 3;
export const defaultRepairBudget = 2;

export interface DecideOptions extends RecoveryBudgets {
  backoff?: BackoffOptions | undefined;
  random?: RandomSource | undefined;
}

/** Extra facts a runtime may add to the contract's decision state. */
export interface DecisionContext extends DecisionState {
  /** The dependency's retry budget is spent (an outage): retries must stop. */
  retryBudgetExhausted?: boolean | undefined;
}

/**
 * The policy. Asks, in this order, and stops at the first that applies (the order
 * matters more than the rules: poison before replay, side effects before retry):
 * 1. not TRANSIENT and repairs spent → ABORT (poison)
 * 2. AUTHORIZATION → ABORT (blocked; never another route)
 * 3. side effects → RECONCILE, else REPLAY behind the key, else ABORT (reconcile by hand)
 * 4. TRANSIENT → RETRY within budget, else ABORT
 * 5. STALE_STATE → REOBSERVE
 * 6. VALIDATION → REPAIR
 * 7. PERMANENT → FALLBACK when the tool has one, else REPLAN
 */
export function decideRecovery(state: DecisionContext, options: DecideOptions = {}): Decision {
  const maxAttempts = options.maxAttempts ?? defaultMaxAttempts;
  const repairBudget = options.repairBudget ?? defaultRepairBudget;
  const { failureClass } = state;

  if (failureClass !== 'TRANSIENT' && state.repairAttempts >= repairBudget) {
    return abort('POISON', 'poison step: fingerprint survived the repair budget');
  }
  if (failureClass === 'AUTHORIZATION') {
    return abort(
      'AUTHORIZATION_DENIED',
      'authorization denied: stop, do not look for another route',
    );
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
      return next('REPLAY', 'REPLAY', `re-run behind idempotency key ${state.checkpoint}`);
    }
    return abort('RECONCILE_BY_HAND', 'side effects with no checkpoint: reconcile by hand');
  }
  if (failureClass === 'TRANSIENT') {
    if (state.attempts >= maxAttempts) {
      return abort(
        'RETRY_BUDGET_SPENT',
        'transport budget spent; a prompt edit will not fix a dead endpoint',
      );
    }
    if (state.retryBudgetExhausted) {
      return abort(
        'DEPENDENCY_RETRY_BUDGET_EXHAUSTED',
        'too many failures against this dependency: retries stopped to avoid a retry storm',
      );
    }
    const backoff = computeBackoff(
      state.attempts,
      validateBackoff(options.backoff ?? {}),
      options.random ?? systemRandom,
      state.retryAfterMs,
    );
    if (!backoff.retry) {
      return abort(
        'RETRY_AFTER_TOO_LONG',
        `the server asked to wait ${backoff.retryAfterMs} ms, beyond the backoff cap: not retrying now`,
      );
    }
    return {
      ...next('RETRY', 'RETRY', 'transport fault, retry budget open'),
      delayMs: backoff.delayMs,
    };
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
  if (state.hasFallback) {
    return next(
      'FALLBACK',
      'FALLBACK',
      'the action cannot succeed as asked: use the declared fallback, marked degraded',
    );
  }
  return next('REPLAN', 'REPLAN', 'the action cannot succeed as asked: the plan needs to change');
}

function abort(code: string, reason: string): Decision {
  return { action: 'ABORT', code, reason, terminal: true };
}

function next(action: Decision['action'], code: string, reason: string): Decision {
  return { action, code, reason, terminal: false };
}
