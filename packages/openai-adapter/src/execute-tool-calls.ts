import type { RecoveryRuntime } from '@recourse/core/adapter';
import type { AnyRecoveryToolSet } from './define-tools.js';
import { type PendingToolCall, runToolCall, type ToolCallRecord } from './run-tool-call.js';

/** Model requests a loop makes at most, unless `maxSteps` says otherwise. */
export const defaultMaxSteps = 8;

/** What one turn's calls came to, and whether the loop should go on. */
export interface TurnResult {
  records: ToolCallRecord[];
  /** The run reached a terminal state: do not ask the model again. */
  stop: boolean;
  /** Text for the model's next request (repair, re-observe), when there is any. */
  guidance?: string | undefined;
}

export interface ExecuteToolCallsOptions {
  signal?: AbortSignal | undefined;
}

/**
 * Every call of one turn, one after another: a denial or poison step in the middle must
 * stop the later calls of the same turn, which parallel execution would race. Each call
 * is answered, also after a stop (the runtime answers RUN_STOPPED without running it).
 */
export async function executeToolCalls(
  runtime: RecoveryRuntime,
  tools: AnyRecoveryToolSet,
  calls: readonly PendingToolCall[],
  options: ExecuteToolCallsOptions = {},
): Promise<TurnResult> {
  const records: ToolCallRecord[] = [];
  for (const call of calls) records.push(await runToolCall(runtime, tools, call, options.signal));
  const guidance = runtime.takeGuidance();
  return { records, stop: runtime.isStopped(), ...(guidance ? { guidance } : {}) };
}
