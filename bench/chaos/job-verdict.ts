import type { Downstream } from './downstream.js';
import { type FaultScheduleOptions, planFault } from './fault-schedule.js';
import { jobSteps, operationOf, type StepSpec } from './job-steps.js';
import type { JobResult, JobStatus } from './run-job.js';

/** The measurement's view of one job, from the downstream's truth, never the job's belief. */
export interface JobVerdict {
  jobId: string;
  status: JobStatus;
  /** Completed within the deadline, every write landed exactly once. */
  correct: boolean;
  /** Every write whose outcome a fault left unknown can be proven or replayed (see below). */
  protected: boolean;
  /** A request of the job reached the dependency while it was down. */
  outage: boolean;
  /** The faults the seeded schedule gave the job's steps, as per-fault rows (`faultRow`). */
  faults: string[];
  /** For a job that did not complete correctly: what stopped it. */
  cause?: JobCause | undefined;
}

export interface JobCause {
  /** The fault the stopping step met (`outage` when it hit the dependency outage). */
  fault: string;
  /** What kind of step stopped: `read`, `idempotent write`, `reconcilable write`, `unguarded write`. */
  target: string;
  /** What the strategy said (`ABORT RETRY_BUDGET_SPENT`, `HTTP 503`, `DEADLINE`, ...). */
  reason: string;
}

const outcomeUnknown = new Set(['timeout-before-write', 'timeout-after-write']);

/**
 * A protected job: every write of it that meets a fault leaving its outcome unknown (a
 * timeout) is idempotent or reconcilable, so a recovery layer has every fact it needs to
 * finish it exactly once. Here that means the unguarded write (`send_confirmation`) met
 * no timeout. Depends only on the seeded fault plan, never on a strategy.
 */
export function isProtectedJob(jobId: string, faults: FaultScheduleOptions): boolean {
  return jobSteps.every((step) => {
    if (step.kind !== 'write' || step.guard !== 'none') return true;
    const plan = planFault(faults, operationOf({ job: jobId, step: step.name }), step);
    return !outcomeUnknown.has(plan.kind);
  });
}

export function judgeJob(
  result: JobResult,
  downstream: Downstream,
  faults: FaultScheduleOptions,
): JobVerdict {
  const writes = jobSteps.filter((step) => step.kind === 'write');
  const exactlyOnce = writes.every(
    (step) =>
      downstream.records.get(operationOf({ job: result.jobId, step: step.name }))?.applied === 1,
  );
  const correct = result.status === 'completed' && exactlyOnce;
  const verdict: JobVerdict = {
    jobId: result.jobId,
    status: result.status,
    correct,
    protected: isProtectedJob(result.jobId, faults),
    outage: jobSteps.some(
      (step) =>
        (downstream.records.get(operationOf({ job: result.jobId, step: step.name }))
          ?.outageRequests ?? 0) > 0,
    ),
    faults: plannedFaults(result.jobId, faults),
  };
  if (correct) return verdict;
  if (result.status === 'completed') {
    verdict.cause = {
      fault: 'any',
      target: 'a write',
      reason: 'completed, a write not exactly once',
    };
    return verdict;
  }
  const stop = result.stop!;
  const step = jobSteps.find((s) => s.name === stop.step)!;
  const record = downstream.records.get(operationOf({ job: result.jobId, step: stop.step }));
  const kind = record?.plan.kind ?? 'none';
  const fault =
    record && record.outageRequests > 0
      ? kind === 'none'
        ? 'outage'
        : `outage + ${kind}`
      : kind === 'none'
        ? 'no fault'
        : kind;
  verdict.cause = {
    fault,
    target: targetOf(step),
    reason: stop.turnsSpent ? `${stop.reason} (agent turns spent)` : stop.reason,
  };
  return verdict;
}

/**
 * A fault as a row of the per-fault table: its kind, and for the faults that leave a
 * write's outcome unknown, whether the write is guarded (idempotent or reconcilable) or not.
 */
export function faultRow(kind: string, step: StepSpec): string {
  if (!outcomeUnknown.has(kind)) return kind;
  return `${kind} (${step.guard === 'none' ? 'unguarded write' : step.kind === 'write' ? 'guarded write' : 'read'})`;
}

/** The faults the seeded schedule gives a job's steps; depends on no strategy. */
export function plannedFaults(jobId: string, faults: FaultScheduleOptions): string[] {
  return jobSteps.flatMap((step) => {
    const plan = planFault(faults, operationOf({ job: jobId, step: step.name }), step);
    return plan.kind === 'none' ? [] : [faultRow(plan.kind, step)];
  });
}

function targetOf(step: StepSpec): string {
  if (step.kind === 'read') return 'read';
  if (step.guard === 'idempotent') return 'idempotent write';
  if (step.guard === 'reconcile') return 'reconcilable write';
  return 'unguarded write';
}
