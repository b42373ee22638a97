import { type KillPoint, type Strategy, type WriteTool, writeTools } from './protocol.js';
import type { JobRecord } from './run-batches.js';

export interface Tally {
  jobs: number;
  /** Finished, reported complete, every write applied exactly once. */
  correct: number;
  /** Applications of a write beyond its first. */
  duplicates: number;
  /** Writes reported done but never applied, and unapplied writes of jobs that never finished. */
  lost: number;
  /** Writes the job left in doubt and reported for a person (RECONCILE_BY_HAND). */
  inDoubt: number;
  /** Jobs that failed or gave no result in time. */
  unfinished: number;
  /** Jobs that never stood at their kill point (the kill found them elsewhere). */
  missedPoint: number;
}

interface Verdict {
  correct: boolean;
  duplicates: number;
  lost: number;
  inDoubt: number;
  unfinished: boolean;
}

export function verdictOf(record: JobRecord): Verdict {
  const result = record.end.kind === 'result' ? record.end.result : undefined;
  let duplicates = 0;
  let lost = 0;
  let inDoubt = 0;
  let exactlyOnce = true;
  for (const tool of writeTools) {
    const applied = record.counts[tool].applied;
    const done = result?.done.includes(tool) ?? false;
    duplicates += Math.max(0, applied - 1);
    if (applied === 0 && (done || !result)) lost += 1;
    if (result?.inDoubt.includes(tool)) inDoubt += 1;
    if (!done || applied !== 1) exactlyOnce = false;
  }
  return {
    correct: result?.status === 'COMPLETED' && exactlyOnce,
    duplicates,
    lost,
    inDoubt,
    unfinished: !result,
  };
}

export function tally(records: JobRecord[]): Tally {
  const sum: Tally = {
    jobs: 0,
    correct: 0,
    duplicates: 0,
    lost: 0,
    inDoubt: 0,
    unfinished: 0,
    missedPoint: 0,
  };
  for (const record of records) {
    const v = verdictOf(record);
    sum.jobs += 1;
    sum.correct += v.correct ? 1 : 0;
    sum.duplicates += v.duplicates;
    sum.lost += v.lost;
    sum.inDoubt += v.inDoubt;
    sum.unfinished += v.unfinished ? 1 : 0;
    sum.missedPoint += record.reachedPoint ? 0 : 1;
  }
  return sum;
}

export interface PointRow {
  write: WriteTool;
  point: KillPoint;
  byStrategy: Record<Strategy, Tally>;
}

/** The same tallies per kill point (write × point), to show where each strategy goes wrong. */
export function tallyByPoint(records: JobRecord[]): PointRow[] {
  const rows: PointRow[] = [];
  for (const write of writeTools) {
    for (const point of ['before-send', 'held', 'after-apply'] as const) {
      const at = records.filter((r) => r.plan.write === write && r.plan.point === point);
      if (at.length === 0) continue;
      rows.push({
        write,
        point,
        byStrategy: {
          recourse: tally(at.filter((r) => r.strategy === 'recourse')),
          alone: tally(at.filter((r) => r.strategy === 'alone')),
        },
      });
    }
  }
  return rows;
}
