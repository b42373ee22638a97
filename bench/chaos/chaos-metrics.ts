import type { Downstream } from './downstream.js';
import { percentile } from './percentile.js';
import type { JobResult } from './run-job.js';

export interface StrategyMetrics {
  strategy: string;
  description: string;
  jobs: { total: number; completed: number; aborted: number; blocked: number };
  /** Landed effects beyond the first, over all write operations. */
  duplicateWrites: number;
  /** The job believes done and nothing landed, or believes not done and it landed. */
  lostWrites: number;
  /** Writes the strategy reported as in doubt (handed to reconciliation), and how many had landed. */
  inDoubt: { writes: number; landed: number };
  wastedAttempts: number;
  downstreamRequests: number;
  requestsPerJob: number;
  reconcileReads: number;
  outage: { requests: number; calls: number; amplification: number };
  /** Virtual milliseconds from a job's arrival to its end. */
  jobWallMs: { p50: number; p99: number; max: number };
  /** Real time the strategy's whole run took on this machine. */
  realMs: number;
}

export function summarise(
  strategy: { name: string; description: string },
  results: readonly JobResult[],
  downstream: Downstream,
  realMs: number,
): StrategyMetrics {
  let duplicateWrites = 0;
  for (const record of downstream.records.values()) {
    if (record.write) duplicateWrites += Math.max(0, record.applied - 1);
  }
  let lostWrites = 0;
  const inDoubt = { writes: 0, landed: 0 };
  for (const result of results) {
    for (const [operation, belief] of result.beliefs) {
      const applied = downstream.records.get(operation)?.applied ?? 0;
      if (belief === 'in-doubt') {
        inDoubt.writes++;
        if (applied > 0) inDoubt.landed++;
      } else if ((belief === 'done') !== applied > 0) lostWrites++;
    }
  }
  const count = (status: JobResult['status']) =>
    results.filter((result) => result.status === status).length;
  const durations = results.map((result) => result.endedAt - result.startedAt);
  const { counters } = downstream;
  return {
    strategy: strategy.name,
    description: strategy.description,
    jobs: {
      total: results.length,
      completed: count('completed'),
      aborted: count('aborted'),
      blocked: count('blocked'),
    },
    duplicateWrites,
    lostWrites,
    inDoubt,
    wastedAttempts: counters.wastedAttempts,
    downstreamRequests: counters.requests,
    requestsPerJob: round(counters.requests / Math.max(1, results.length)),
    reconcileReads: counters.reconcileReads,
    outage: {
      requests: counters.outageRequests,
      calls: counters.outageCalls,
      amplification: round(counters.outageRequests / Math.max(1, counters.outageCalls)),
    },
    jobWallMs: {
      p50: percentile(durations, 50),
      p99: percentile(durations, 99),
      max: percentile(durations, 100),
    },
    realMs: Math.round(realMs),
  };
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
