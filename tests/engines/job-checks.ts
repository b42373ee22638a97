// What both engines' tests read of a job after its kills, and the check that a resumed run
// with recourse ended as the uncrashed one: written once for DBOS and Restate.
import { expect } from 'vitest';
import { openJobDownstreams, type WriteTool, writeTools } from './agent-job.js';

export interface WriteCounts {
  requests: number;
  applied: number;
}

/** What each write's downstream received and applied, read from its files. */
export function writeCounts(downstreamDir: string): Record<WriteTool, WriteCounts> {
  const d = openJobDownstreams(downstreamDir);
  const of = (x: typeof d.stock) => ({ requests: x.requests().length, applied: x.writes().length });
  return { reserve_stock: of(d.stock), charge_card: of(d.payments), send_letter: of(d.letters) };
}

/** The part of recourse's outcome the tests compare. */
export interface JobOutcome {
  status: string;
  completed_steps: string[];
  recoveries: { tool: string }[];
  needs_reconciliation?: { tool: string }[];
}

/**
 * A run killed at `killAt` and resumed with recourse: the uncrashed run's status and steps,
 * every write applied once, the letter and the charge never re-sent, and only the
 * recoveries of the write the crash hit.
 */
export function expectResumedAsUncrashed(
  reference: JobOutcome,
  outcome: JobOutcome,
  counts: Record<WriteTool, WriteCounts>,
  killAt: string | undefined,
): void {
  expect({ status: outcome.status, completed_steps: outcome.completed_steps }).toEqual({
    status: reference.status,
    completed_steps: reference.completed_steps,
  });
  for (const tool of writeTools) expect(counts[tool].applied, tool).toBe(1);
  // Never re-sent: the letter (neither reconcile nor idempotent) and the charge (reconciled).
  expect(counts.send_letter.requests).toBe(1);
  expect(counts.charge_card.requests).toBe(1);
  for (const recovery of outcome.recoveries) expect(killAt?.endsWith(recovery.tool)).toBe(true);
}
