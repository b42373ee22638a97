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
 * Every call of one turn, handed to the runtime in the response's order as one turn: the
 * runtime lets unrelated reads run side by side and holds a write (or a call reaching what
 * an earlier call reaches) until the calls before it settled, so a denial or poison step
 * stops what comes after it. Each call is answered, also after a stop (the runtime answers
 * RUN_STOPPED without running it).
 */
export async function executeToolCalls(
  runtime: RecoveryRuntime,
  tools: AnyRecoveryToolSet,
  calls: readonly PendingToolCall[],
  options: ExecuteToolCallsOptions = {},
): Promise<TurnResult> {
  const turn = {}; // this response's identity
  const records: ToolCallRecord[] = await Promise.all(
    calls.map((call) => runToolCall(runtime, tools, call, options.signal, turn)),
  );
  const guidance = runtime.takeGuidance();
  return { records, stop: runtime.isStopped(), ...(guidance ? { guidance } : {}) };
}
