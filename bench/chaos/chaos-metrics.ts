import type { Downstream } from './downstream.js';
import type { JobVerdict } from './job-verdict.js';
import { percentile } from './percentile.js';
import type { JobResult } from './run-job.js';

/** Jobs that did not complete correctly, grouped by what stopped them. */
export interface CauseCount {
  fault: string;
  target: string;
  reason: string;
  jobs: number;
  /** Of those, protected jobs (recourse has every fact it needs there). */
  protectedJobs: number;
  /** Of those, jobs at least one baseline completed correctly (set after every strategy ran). */
  baselineCorrect?: number | undefined;
}

export interface StrategyMetrics {
  strategy: string;
  kind: 'baseline' | 'recourse';
  description: string;
  jobs: {
    total: number;
    completed: number;
    aborted: number;
    blocked: number;
    timedOut: number;
  };
  /** Completed within the deadline with every write landed exactly once. */
  correctCompletions: number;
  /** Jobs whose every outcome-unknown write is idempotent or reconcilable, and how many of those completed correctly. */
  protectedJobs: { total: number; correct: number };
  /**
   * Protected jobs at least one baseline completed correctly and this strategy did not
   * (set after every strategy ran; recourse's goal is 0).
   */
  protectedMissed?: number | undefined;
  /** Landed effects beyond the first, over all write operations. */
  duplicateWrites: number;
  /** The job believes done and nothing landed, or believes not done and it landed. */
  lostWrites: number;
  /** Writes the strategy reported as in doubt (handed to reconciliation), and how many had landed. */
  inDoubt: { writes: number; landed: number };
  /** Writes whose call the deadline cut off, and how many had landed. */
  abandoned: { writes: number; landed: number };
  wastedAttempts: number;
  downstreamRequests: number;
  requestsPerJob: number;
  reconcileReads: number;
  /** Requests into the outage window per operation that sent any: the goal is ≤ 1.1. */
  outage: { requests: number; operations: number; amplification: number };
  /** Virtual milliseconds from a job's arrival to its end. */
  jobWallMs: { p50: number; p99: number; max: number };
  /** Every job that did not complete correctly, by cause, most frequent first. */
  unfinished: CauseCount[];
  /** Real time the strategy's whole run took on this machine. */
  realMs: number;
}

export function summarise(
  strategy: { name: string; kind: 'baseline' | 'recourse'; description: string },
  results: readonly JobResult[],
  verdicts: readonly JobVerdict[],
  downstream: Downstream,
  realMs: number,
): StrategyMetrics {
  let duplicateWrites = 0;
  for (const record of downstream.records.values()) {
    if (record.write) duplicateWrites += Math.max(0, record.applied - 1);
  }
  let lostWrites = 0;
  const inDoubt = { writes: 0, landed: 0 };
  const abandoned = { writes: 0, landed: 0 };
  for (const result of results) {
    for (const [operation, belief] of result.beliefs) {
      const landed = (downstream.records.get(operation)?.applied ?? 0) > 0;
      if (belief === 'in-doubt' || belief === 'abandoned') {
        const tally = belief === 'in-doubt' ? inDoubt : abandoned;
        tally.writes++;
        if (landed) tally.landed++;
      } else if ((belief === 'done') !== landed) lostWrites++;
    }
  }
  const count = (status: JobResult['status']) =>
    results.filter((result) => result.status === status).length;
  const durations = results.map((result) => result.endedAt - result.startedAt);
  const protectedJobs = verdicts.filter((v) => v.protected);
  const { counters } = downstream;
  return {
    strategy: strategy.name,
    kind: strategy.kind,
    description: strategy.description,
    jobs: {
      total: results.length,
      completed: count('completed'),
      aborted: count('aborted'),
      blocked: count('blocked'),
      timedOut: count('timed-out'),
    },
    correctCompletions: verdicts.filter((v) => v.correct).length,
    protectedJobs: {
      total: protectedJobs.length,
      correct: protectedJobs.filter((v) => v.correct).length,
    },
    duplicateWrites,
    lostWrites,
    inDoubt,
    abandoned,
    wastedAttempts: counters.wastedAttempts,
    downstreamRequests: counters.requests,
    requestsPerJob: round(counters.requests / Math.max(1, results.length)),
    reconcileReads: counters.reconcileReads,
    outage: {
      requests: counters.outageRequests,
      operations: counters.outageOperations,
      amplification: round(counters.outageRequests / Math.max(1, counters.outageOperations)),
    },
    jobWallMs: {
      p50: percentile(durations, 50),
      p99: percentile(durations, 99),
      max: percentile(durations, 100),
    },
    unfinished: tallyCauses(verdicts),
    realMs: Math.round(realMs),
  };
}

/** Groups the verdicts that are not correct by cause; `baselineCorrect` names jobs to count as recoverable. */
export function tallyCauses(
  verdicts: readonly JobVerdict[],
  baselineCorrect?: ReadonlySet<string> | undefined,
): CauseCount[] {
  const tally = new Map<string, CauseCount>();
  for (const verdict of verdicts) {
    if (verdict.correct || !verdict.cause) continue;
    const { fault, target, reason } = verdict.cause;
    const key = `${fault}\u0000${target}\u0000${reason}`;
    let entry = tally.get(key);
    if (!entry) {
      entry = { fault, target, reason, jobs: 0, protectedJobs: 0 };
      if (baselineCorrect) entry.baselineCorrect = 0;
      tally.set(key, entry);
    }
    entry.jobs++;
    if (verdict.protected) entry.protectedJobs++;
    if (baselineCorrect?.has(verdict.jobId))
      entry.baselineCorrect = (entry.baselineCorrect ?? 0) + 1;
  }
  return [...tally.values()].sort(
    (a, b) => b.jobs - a.jobs || `${a.fault}${a.reason}`.localeCompare(`${b.fault}${b.reason}`),
  );
}

/**
 * After every strategy of one size ran: for each strategy, the protected jobs some
 * baseline (other than itself) completed correctly that it did not, and its causes
 * table with how many of each cause a baseline did finish correctly.
 */
export function compareWithBaselines(
  runs: readonly { metrics: StrategyMetrics; verdicts: readonly JobVerdict[] }[],
): void {
  for (const run of runs) {
    const correctElsewhere = new Set<string>();
    for (const other of runs) {
      if (other === run || other.metrics.kind !== 'baseline') continue;
      for (const verdict of other.verdicts)
        if (verdict.correct) correctElsewhere.add(verdict.jobId);
    }
    run.metrics.protectedMissed = run.verdicts.filter(
      (v) => v.protected && !v.correct && correctElsewhere.has(v.jobId),
    ).length;
    run.metrics.unfinished = tallyCauses(run.verdicts, correctElsewhere);
  }
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
