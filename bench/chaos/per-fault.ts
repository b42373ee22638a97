import type { StrategyMetrics } from './chaos-metrics.js';
import type { JobVerdict } from './job-verdict.js';

/** One row of the per-fault table: jobs that met that fault and no other. */
export interface PerFaultRow {
  fault: string;
  jobs: number;
  /** Correct completions of those jobs, by strategy name. */
  correct: Record<string, number>;
  /** A write left unknown and unguarded: no strategy can finish it safely without re-sending blind. */
  unguarded: boolean;
}

/**
 * Single-fault jobs by fault, for every strategy of one size: a job counts when the seeded
 * schedule gave it exactly one fault and no strategy's run sent it into the outage, or it
 * had no scheduled fault and some strategy's run did (the `outage` row). The same jobs are
 * compared for every strategy.
 */
export function perFaultTable(
  runs: readonly { metrics: StrategyMetrics; verdicts: readonly JobVerdict[] }[],
): PerFaultRow[] {
  const first = runs[0];
  if (!first) return [];
  const rowOf = new Map<string, string>();
  first.verdicts.forEach((verdict, index) => {
    const outage = runs.some((run) => run.verdicts[index]?.outage === true);
    if (verdict.faults.length === 1 && !outage) rowOf.set(verdict.jobId, verdict.faults[0]!);
    if (verdict.faults.length === 0 && outage) rowOf.set(verdict.jobId, 'outage');
  });
  const rows = new Map<string, PerFaultRow>();
  for (const fault of rowOf.values()) {
    if (!rows.has(fault))
      rows.set(fault, { fault, jobs: 0, correct: {}, unguarded: fault.includes('unguarded') });
  }
  for (const fault of rowOf.values()) rows.get(fault)!.jobs++;
  for (const run of runs) {
    for (const row of rows.values()) row.correct[run.metrics.strategy] = 0;
    for (const verdict of run.verdicts) {
      const fault = rowOf.get(verdict.jobId);
      if (fault !== undefined && verdict.correct) rows.get(fault)!.correct[run.metrics.strategy]!++;
    }
  }
  return [...rows.values()].sort((a, b) => a.fault.localeCompare(b.fault));
}
