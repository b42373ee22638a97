import { Call } from '../call/call.js';
import { executeCall } from '../call/execute-call.js';
import type { ResolvedTool } from '../options/tool-table.js';
import type { RunParts } from '../run-parts.js';
import type { UndoInDoubt } from './run-actions.js';
import { maxUndoableWrites, type WritesToCompensate } from './write-history.js';

export interface CompensationReport {
  /** Tool names of the writes undone, in the order tried (newest write first). */
  compensated: string[];
  /**
   * Not known to be undone: the undo failed, may have landed (then also in doubt), or was
   * never tried because the run no longer held the write (then counted in `forgotten`).
   */
  failed: string[];
  not_compensable: string[];
  /**
   * Present when a long run dropped writes with a compensation (past the newest
   * `maxUndoableWrites`): how many, each also named in `failed`. They still stand.
   */
  forgotten?: number | undefined;
}

export interface CompensationResult {
  report: CompensationReport;
  /** Undos left in doubt: listed in the outcome's `needs_reconciliation`, never re-sent. */
  inDoubt: UndoInDoubt[];
}

/**
 * Undoes the run's completed writes, newest first (a saga's compensation). Each undo is a
 * write of its own, run through the same pipeline: claimed in the ledger under the write's
 * key + `:compensate` (so two workers or a restart never undo one write twice), its
 * transient failures retried, an unknown outcome left in doubt for a person. Writes the
 * run no longer held are not skipped in silence: they are `failed` and `forgotten`.
 */
export async function compensateWrites(
  run: RunParts,
  writes: WritesToCompensate,
  resolve: (toolName: string) => ResolvedTool,
): Promise<CompensationResult> {
  const report: CompensationReport = {
    compensated: [],
    failed: [],
    not_compensable: writes.notCompensable.toReversed(),
  };
  const inDoubt: UndoInDoubt[] = [];
  for (const write of writes.undoable.toReversed()) {
    const own = resolve(write.tool);
    const declared = own.policy.compensate;
    const compensation = typeof declared === 'function' ? { undo: declared } : declared;
    if (!compensation || !write.undo) {
      report.not_compensable.push(write.tool);
      continue;
    }
    const undo = write.undo;
    const tool: ResolvedTool = {
      name: `${write.tool}.compensate`,
      policy: {
        sideEffects: true,
        key: () => `${write.key}:compensate`,
        idempotent: compensation.idempotent,
        reconcile: compensation.reconcile,
      },
      effects: 'write',
      claims: true,
      maxAttempts: own.maxAttempts,
      timeoutMs: own.timeoutMs,
      dependency: own.dependency,
      stepId: `read:${write.tool}.compensate`,
    };
    const call = new Call(run, tool, {
      toolName: tool.name,
      toolCallId: `compensate:${write.key}`,
      input: undo.input,
      execute: () =>
        compensation.undo(undo.input, {
          runId: run.runId,
          toolName: write.tool,
          idempotencyKey: write.key,
          result: undo.result,
        }),
    });
    let ok = false;
    let code = 'ABORTED';
    try {
      const ending = await executeCall(call);
      ok = ending.ok;
      if (!ending.ok) code = ending.decision.code;
    } catch {
      // Aborted: not known to be undone, and in doubt if it may have been sent.
    }
    (ok ? report.compensated : report.failed).push(write.tool);
    if (!ok && call.inDoubt) inDoubt.push({ tool: write.tool, key: call.key, code });
    if (run.emitter.active) {
      run.emitter.emit({
        ...call.base(),
        type: 'compensation.finished',
        status: ok ? 'compensated' : 'failed',
      });
    }
  }
  if (writes.forgotten.length > 0) {
    report.failed.push(...writes.forgotten.toReversed());
    report.forgotten = writes.forgotten.length;
    if (run.emitter.active) {
      run.emitter.emit({
        type: 'compensation.forgotten',
        runId: run.runId,
        count: writes.forgotten.length,
        tools: [...new Set(writes.forgotten)],
        kept: maxUndoableWrites,
        at: run.clock.now(),
      });
    }
  }
  return { report, inDoubt };
}
