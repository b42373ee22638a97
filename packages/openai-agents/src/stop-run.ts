import type { ToolToFinalOutputFunction } from '@openai/agents';
import type { RecoveryRuntime } from '@recourse/core';

/**
 * The agent's `toolUseBehavior`: after the tool calls of a turn, the run ends once recourse
 * stopped it, with the outcome's summary as the final output (every call of that turn has
 * already been answered). Until then the model runs again, as with `'run_llm_again'`.
 */
export function createStopBehavior(runtime: RecoveryRuntime): ToolToFinalOutputFunction {
  return () => {
    if (!runtime.isStopped()) return { isFinalOutput: false, isInterrupted: undefined };
    const outcome = runtime.outcome();
    return {
      isFinalOutput: true,
      isInterrupted: undefined,
      finalOutput: outcome.summary ?? `${outcome.status}: ${outcome.reason ?? ''}`,
    };
  };
}
