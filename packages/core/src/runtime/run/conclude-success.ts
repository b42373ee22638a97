import type { Recovery } from '../../contract/outcome.js';
import type { Call, CallSuccessEnding } from '../call/call.js';
import type { RunState } from './run-state.js';

/** A call that got its value: a step done (or done in part), a write the run can undo. */
export function concludeSuccess(state: RunState, call: Call, ending: CallSuccessEnding) {
  const tool = call.tool.name;
  const recovery = recoveryOf(call);
  if (ending.degraded) {
    state.dispatch({ type: 'degraded', tool, missing: ending.missingEvidence ?? tool, recovery });
    return ending;
  }
  const write = call.tool.effects === 'write';
  state.dispatch({
    type: 'succeeded',
    tool,
    operation: write ? call.key : call.tool.stepId,
    recovery,
  });
  if (write) {
    // A duplicate answered from the ledger counts too: a restarted run can still undo it.
    const undo = call.tool.policy.compensate
      ? { input: call.request.input, result: ending.value }
      : undefined;
    state.dispatch({ type: 'write.completed', write: { tool, key: call.key, undo } });
  }
  return ending;
}

/** A call that failed and then got its value: how recourse recovered it, for the outcome. */
function recoveryOf(call: Call): Recovery | undefined {
  if (!call.firstFailure || !call.recoveredBy) return undefined;
  return {
    tool: call.tool.name,
    tool_call_id: call.request.toolCallId,
    failure_class: call.firstFailure.failureClass,
    code: call.firstFailure.code,
    action: call.recoveredBy,
    attempts: call.attempts,
  };
}
