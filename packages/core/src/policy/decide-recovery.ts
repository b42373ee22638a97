import { type RandomSource, systemRandom } from '../clock.js';
import {
  type Decision,
  type DecisionCode,
  type DecisionState,
  type PolicyFact,
  policyFactOf,
  type RecoveryBudgets,
} from '../types.js';
import { type BackoffOptions, computeBackoff, validateBackoff } from './backoff.js';

export const defaultMaxAttempts = 3;
export const defaultRepairBudget = 2;
/** The shortest wait before a last try in the run's time left. */
const lastTryMinMs = 1_000;

export interface DecideOptions extends RecoveryBudgets {
  /**
   * How long a call may spend recovering from transient failures, from its first failure:
   * a retry (with its backoff or the server's Retry-After) that would end later is not
   * made. Default: no limit beyond `maxAttempts`.
   */
  maxElapsedMs?: number | undefined;
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
 * 2. AUTHORIZATION → ABORT (blocked; never a retry, a repair or another route); then,
 *    not TRANSIENT and the ledger could not say how many repairs were spent → ABORT
 *    (`LEDGER_UNAVAILABLE`: it may be poison, so nothing more is sent)
 * 3. another worker owns the write, or holds its result → REOBSERVE (send nothing)
 * 4. the key belongs to another payload → REPLAN
 * 5. a reconcile read failed → ABORT (the write stays in doubt)
 * 6. in doubt (`inDoubt`, the CONTRACT's `sideEffects`) → RECONCILE, else REPLAY behind
 *    the key (`checkpointKey`, the CONTRACT's `checkpoint`), else ABORT (reconcile by hand)
 * 7. proven not to have happened, or TRANSIENT → RETRY within the attempts, the time
 *    budget, the dependency's budget (or wait for its probe) and the server's
 *    Retry-After — with a run deadline, within the run's time left instead of the
 *    attempts and the call's budget; else FALLBACK or ABORT
 * 8. STALE_STATE → REOBSERVE
 * 9. VALIDATION → REPAIR
 * 10. UNKNOWN_OUTCOME → ABORT (nothing can prove what happened)
 * 11. PERMANENT → FALLBACK when the tool has one, else REPLAN
 */
export function decideRecovery(state: DecisionState, options: DecideOptions = {}): Decision {
  const maxAttempts = options.maxAttempts ?? defaultMaxAttempts;
  const repairBudget = options.repairBudget ?? defaultRepairBudget;
  const { failureClass } = state;
  const fact = policyFactOf(state.code);
  const inDoubt = state.inDoubt ?? state.sideEffects === true;

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
  if (failureClass !== 'TRANSIENT' && state.repairsUnknown) {
    return abort(
      'LEDGER_UNAVAILABLE',
      'the ledger could not say how often this failure was repaired, so it may be poison: nothing more is sent',
    );
  }
  if (fact === 'LEASE_LOST' || fact === 'IN_FLIGHT' || fact === 'RESULT_NOT_STORED') {
    return next('REOBSERVE', fact, ownedElsewhere[fact]);
  }
  if (fact === 'IDEMPOTENCY_CONFLICT') {
    return next(
      'REPLAN',
      'IDEMPOTENCY_CONFLICT',
      'the idempotency key belongs to a different operation',
    );
  }
  if (state.reconciled === 'failed') {
    return abort('RECONCILE_FAILED', 'the reconcile read failed, so the write stays in doubt');
  }
  if (inDoubt) {
    if (state.reconcilable) {
      return next(
        'RECONCILE',
        'RECONCILE',
        'write outcome unknown: read the downstream state before anything is re-sent',
      );
    }
    if (checkpointKeyOf(state)) return decideResend(state, options, maxAttempts, 'REPLAY');
    return abort('RECONCILE_BY_HAND', 'side effects with no checkpoint: reconcile by hand');
  }
  if (failureClass === 'TRANSIENT' || state.reconciled === 'not_happened') {
    return decideResend(state, options, maxAttempts, 'RETRY');
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

/** The key a replay runs behind, under either of its names. */
function checkpointKeyOf(state: DecisionState): string | undefined {
  return state.checkpointKey ?? state.checkpoint;
}

const ownedElsewhere: Record<
  Extract<PolicyFact, 'LEASE_LOST' | 'IN_FLIGHT' | 'RESULT_NOT_STORED'>,
  string
> = {
  LEASE_LOST: 'the claim was taken over by another worker; its result will be the result',
  IN_FLIGHT: 'another worker holds this write; wait for its result',
  RESULT_NOT_STORED: 'the write completed but its result was not stored: read the state',
};

/**
 * Sending again: a RETRY of a call that provably changed nothing, or a REPLAY of a write
 * in doubt behind its key. Within the attempts, the time budget, the dependency's budget
 * (or after its next probe) and the server's Retry-After; else FALLBACK (never for a write
 * in doubt) or ABORT.
 */
function decideResend(
  state: DecisionState,
  options: DecideOptions,
  maxAttempts: number,
  action: 'RETRY' | 'REPLAY',
): Decision {
  const replay = action === 'REPLAY';
  const ledgerDown = policyFactOf(state.code) === 'LEDGER_UNAVAILABLE';
  const canFallBack = state.hasFallback && !replay;
  const stopped = (code: DecisionCode, reason: string) =>
    canFallBack && code !== 'LEDGER_UNAVAILABLE' ? fallback(reason) : abort(code, reason);
  const notNow = () => (canFallBack ? fallback('not now') : tooLong(state));
  const elapsed = state.elapsedMs ?? 0;
  // A run with a deadline spends its own time: a wait fits while the run has time left,
  // and attempts are bounded by that time and the dependency's circuit, not by a count
  // that a long burst outlasts. Without one, the call's attempts and time budget bound it.
  const timeLeft = state.timeLeftMs;
  const fits = (delayMs: number) =>
    timeLeft !== undefined
      ? delayMs < timeLeft
      : options.maxElapsedMs === undefined || elapsed + delayMs <= options.maxElapsedMs;
  const countBounds = timeLeft === undefined || ledgerDown;
  if (countBounds && state.attempts >= maxAttempts) {
    return ledgerDown
      ? stopped('LEDGER_UNAVAILABLE', 'the ledger could not be reached; the write was not sent')
      : stopped(
          'ATTEMPTS_EXHAUSTED',
          replay
            ? 'the write could not be completed within its attempts'
            : 'the call ran out of attempts; a prompt edit will not fix a dead endpoint',
        );
  }
  if (state.retryBudgetExhausted) {
    const wait = state.retryBudgetWaitMs;
    if (wait === undefined || !fits(wait)) {
      return stopped(
        'DEPENDENCY_RETRY_BUDGET_EXHAUSTED',
        'too many failures against this dependency: retries stopped to avoid a retry storm',
      );
    }
    return {
      ...next(action, action, "the dependency's circuit is open: wait for its next probe"),
      delayMs: wait,
    };
  }
  const retry = withDelay(
    replay
      ? next('REPLAY', 'REPLAY', `re-run behind idempotency key ${checkpointKeyOf(state)}`)
      : next('RETRY', 'RETRY', retryReason(state)),
    state,
    options,
  );
  if (retry.delayMs === undefined) return notNow();
  if (!fits(retry.delayMs)) {
    const left = timeLeft ?? (options.maxElapsedMs ?? 0) - elapsed;
    if ((state.retryAfterMs ?? 0) > left) return notNow();
    // The backoff outgrew the run's time left by less than half: one more try halfway
    // through what is left (a burst may end before the deadline does), then no more.
    if (
      timeLeft !== undefined &&
      state.retryAfterMs === undefined &&
      timeLeft / 2 >= lastTryMinMs &&
      timeLeft >= retry.delayMs / 2
    )
      return { ...retry, delayMs: Math.floor(timeLeft / 2) };
    return timeLeft === undefined
      ? stopped(
          'TIME_BUDGET_EXHAUSTED',
          "the call's time budget for recovering is spent; a longer wait would not help it",
        )
      : stopped(
          'TIME_BUDGET_EXHAUSTED',
          "the run's time left is shorter than the next wait; a longer wait would not help it",
        );
  }
  return retry;
}

/** Why the same call may go again, in the words of what failed. */
function retryReason(state: DecisionState): string {
  if (state.reconciled === 'not_happened') {
    return 'the reconcile read shows the write did not land: send it again after a backoff';
  }
  const what = state.code ? `transient failure (${state.code})` : 'transient failure';
  return `${what} that changed nothing: try again after a backoff`;
}

function tooLong(state: DecisionState): Decision {
  const beyond = state.timeLeftMs === undefined ? 'the backoff cap' : "the run's time left";
  return abort(
    'RETRY_AFTER_TOO_LONG',
    `the server asked to wait ${state.retryAfterMs} ms, beyond ${beyond}: not retrying now`,
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
  if (backoff.retry) return { ...decision, delayMs: backoff.delayMs };
  // A run with a deadline waits out a long Retry-After when it fits in the time left.
  if (state.timeLeftMs !== undefined && state.retryAfterMs !== undefined)
    return { ...decision, delayMs: state.retryAfterMs };
  return decision;
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
