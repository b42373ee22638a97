import type { Clock } from '../clock.js';
import { failureFingerprint } from '../policy/fingerprint.js';
import {
  canRetryWithin,
  type RetryBudget,
  recordBudgetOutcome,
  retryInMsOf,
} from '../policy/retry-budget.js';
import type { Classification, Decision, DecisionState } from '../types.js';
import type { RunMemory } from './run/run-memory.js';

/**
 * The one retry loop of the runtime. Every failure that may be sent again — a tool call's
 * attempt, a model request, a claim or fact read the ledger did not answer, a call the SDK
 * refused — goes through it in the same order:
 *
 * 1. **budget**: a TRANSIENT failure is counted against its dependency's retry budget
 *    (`countFailure`; a 422 or a 403 says nothing about the dependency's health);
 * 2. the policy decides (`decideRecovery`), with the **time budget** among its facts
 *    (`timeFacts`: the call's time since its first failure, the run's time left);
 * 3. **backoff**: the decided delay is waited (`resendOrStop`);
 * 4. **circuit**: the dependency's budget is asked whether the retry may go now; refused,
 *    the policy decides again with what the budget said (wait for its probe, or stop).
 *
 * What differs between the callers is a fact handed to the policy (no reconcile for a
 * model request, one attempt for a call the SDK refused, no dependency budget for the
 * ledger), never a different loop.
 */
export interface RetryLoop {
  /** The dependency whose retry budget this failure spends and asks; none for the ledger. */
  budget: RetryBudget | undefined;
  dependency: string;
  /** The policy's answer with the loop's facts of this moment (the circuit's answer). */
  decide(facts: CircuitFacts): Decision;
  /**
   * Waits the decided delay. Resolves to false when nothing may be sent any more (a
   * write's lease was lost during the wait): the loop stops without asking the circuit.
   */
  wait(delayMs: number, decision: Decision): Promise<boolean>;
}

/** What the dependency's budget said when a retry was about to be sent. */
export type CircuitFacts = Partial<
  Pick<DecisionState, 'retryBudgetExhausted' | 'retryBudgetWaitMs'>
>;

/** How the loop left a decision to send again: go now, stop with a decision, or interrupted. */
export type LoopAnswer =
  | { readonly resend: true; readonly decision: Decision }
  | { readonly resend: false; readonly decision: Decision }
  | { readonly resend: false; readonly interrupted: true; readonly decision: Decision };

/** Step 1: only failures a retry could fix spend the dependency's budget. */
export async function countFailure(
  loop: Pick<RetryLoop, 'budget' | 'dependency'>,
  classification: Classification,
  attempt: number,
): Promise<void> {
  if (classification.failureClass !== 'TRANSIENT') return;
  await recordBudgetOutcome(
    loop.budget,
    loop.dependency,
    attempt > 1 ? 'retry-failure' : 'failure',
  );
}

/** A success closes the dependency's count; a shared budget's answer is not waited for. */
export function countSuccess(budget: RetryBudget | undefined, dependency: string): void {
  void recordBudgetOutcome(budget, dependency, 'success');
}

/**
 * Steps 3 and 4 for a decision already made: while it says RETRY or REPLAY, its backoff is
 * waited and the dependency's budget asked; refused, the policy decides again with the
 * budget's answer. Resolves to the decision to act on.
 */
export async function resendOrStop(loop: RetryLoop, first: Decision): Promise<LoopAnswer> {
  let decision = first;
  while (decision.action === 'RETRY' || decision.action === 'REPLAY') {
    if (!(await loop.wait(decision.delayMs ?? 0, decision)))
      return { resend: false, interrupted: true, decision };
    // Sent only if the dependency's budget lets it through now (or this is its probe);
    // refused, the policy says whether to wait for the next probe or to stop.
    if (await canRetryWithin(loop.budget, loop.dependency)) return { resend: true, decision };
    const retryBudgetWaitMs = await retryInMsOf(loop.budget, loop.dependency);
    decision = loop.decide({ retryBudgetExhausted: true, retryBudgetWaitMs });
  }
  return { resend: false, decision };
}

/** The whole loop for a failure with nothing between the decision and the wait (steps 1–4). */
export async function recover(
  loop: RetryLoop,
  classification: Classification,
  attempt: number,
): Promise<LoopAnswer> {
  await countFailure(loop, classification, attempt);
  return resendOrStop(loop, loop.decide({}));
}

/**
 * The time budget as facts: the time since the first failure (the call's budget counts
 * from there) and, with a run deadline, the run's time left.
 */
export function timeFacts(
  clock: Clock,
  failedAt: number | undefined,
  deadlineAt: number | undefined,
): Pick<DecisionState, 'elapsedMs' | 'timeLeftMs'> {
  const now = clock.now();
  return {
    elapsedMs: failedAt === undefined ? 0 : now - failedAt,
    timeLeftMs: deadlineAt === undefined ? undefined : deadlineAt - now,
  };
}

/** How often this failure was repaired before: the facts poison is decided on. */
export interface RepairFacts {
  fingerprint: string;
  repairAttempts: number;
  /** The ledger could not say (it failed or did not answer): it may be poison. */
  repairsUnknown: boolean;
}

/** Reads the repairs spent on this failure's fingerprint (tool, canonical input, failure). */
export async function repairFacts(
  memory: Pick<RunMemory, 'repairs'>,
  tool: string,
  inputHash: string,
  classification: Classification,
): Promise<RepairFacts> {
  const fingerprint = failureFingerprint({ tool, input: inputHash, classification });
  const stored = await memory.repairs(fingerprint);
  return { fingerprint, repairAttempts: stored ?? 0, repairsUnknown: stored === undefined };
}
