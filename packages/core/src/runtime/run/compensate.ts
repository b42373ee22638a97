import { Call, type RunParts } from '../call/call.js';
import { executeCall } from '../call/execute-call.js';
import type { ResolvedTool } from '../options/tool-table.js';
import type { CompletedWrite } from './run-state.js';

export interface CompensationReport {
  /** Tool names of the writes undone, in the order tried (newest write first). */
  compensated: string[];
  failed: string[];
  not_compensable: string[];
}

/**
 * Undoes the run's completed writes, newest first (a saga's compensation). Each undo is a
 * write of its own, run through the same pipeline: claimed in the ledger under the write's
 * key + `:compensate` (so two workers or a restart never undo one write twice), its
 * transient failures retried, an unknown outcome left in doubt for a person.
 */
export async function compensateWrites(
  run: RunParts,
  writes: readonly CompletedWrite[],
  resolve: (toolName: string) => ResolvedTool,
): Promise<CompensationReport> {
  const report: CompensationReport = { compensated: [], failed: [], not_compensable: [] };
  for (const write of [...writes].reverse()) {
    const own = resolve(write.tool);
    const compensate = own.policy.compensate;
    if (!compensate || !write.undo) {
      report.not_compensable.push(write.tool);
      continue;
    }
    const undo = write.undo;
    const tool: ResolvedTool = {
      name: `${write.tool}.compensate`,
      policy: { sideEffects: true, key: () => `${write.key}:compensate` },
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
        compensate(undo.input, {
          runId: run.runId,
          toolName: write.tool,
          idempotencyKey: write.key,
          result: undo.result,
        }),
    });
    let ok = false;
    try {
      ok = (await executeCall(call)).ok;
    } catch {
      ok = false; // aborted: not known to be undone
    }
    (ok ? report.compensated : report.failed).push(write.tool);
    if (run.emitter.active) {
      run.emitter.emit({
        ...call.base(),
        type: 'compensation.finished',
        status: ok ? 'compensated' : 'failed',
      });
    }
  }
  return report;
}
