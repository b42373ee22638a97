import { buildContract, type RecoveryContract } from '../../contract/recovery-contract.js';
import type { Classification, Decision } from '../../types.js';
import type { Call, CallEnding, StopRequest } from '../call/call.js';
import type { ToolCallResult } from '../call/tool-call.js';
import { buildOutcome } from './build-outcome.js';
import { concludeSuccess } from './conclude-success.js';
import type { Emitter } from './emitter.js';
import { replan } from './replan.js';
import type { RunState } from './run-state.js';

export interface ConcludeParts {
  runId: string;
  state: RunState;
  emitter: Emitter;
  now: () => number;
  repairBudget: number;
  onDenial: 'stop' | 'continue';
  nextPossibleAction: string;
  /** Read tools that show whether a write of the named tool landed (see `verifyWith`). */
  verifiersOf: (call: Call) => readonly string[];
}

export interface Concluder {
  /** Records how a call ended in the run and hands back what the adapter shows the model. */
  conclude(call: Call, ending: CallEnding): ToolCallResult;
  /** Makes the run terminal (the first cause wins) and says so once. True if this stopped it. */
  stop(request: StopRequest): boolean;
  /** The model itself could not be reached: the run ends. */
  modelFailed(
    classification: Classification,
    decision: Decision,
    reason: 'MODEL_UNAVAILABLE' | 'MODEL_QUOTA_EXCEEDED',
  ): void;
}

/**
 * The one place where a call's ending becomes the run's state: the model's recovery
 * contract is built, the run state changes through `dispatch`, the plan version moves on
 * a REPLAN, the run stops on a terminal decision, and the events say so.
 */
export function createConcluder(parts: ConcludeParts): Concluder {
  const { state, emitter, runId } = parts;

  const stop = (request: StopRequest): boolean => {
    if (state.terminal) return false;
    state.dispatch({ type: 'stopped', terminal: request });
    if (emitter.active) {
      const outcome = buildOutcome(state.snapshot(), parts.nextPossibleAction);
      emitter.emit({ type: 'run.stopped', runId, outcome, at: parts.now() });
    }
    return true;
  };

  const conclude = (call: Call, ending: CallEnding): ToolCallResult => {
    const tool = call.tool.name;
    if (ending.ok) return concludeSuccess(state, call, ending);
    if (ending.stop) stop(ending.stop);
    const { classification, decision } = ending;
    const refusal = ending.kind === 'refused' ? ending : undefined;
    // A refusal of a quarantined operation repeats a poison the plan already answered.
    const plan =
      decision.action === 'REPLAN' && !refusal ? replan(parts, tool, classification) : undefined;
    const denied = decision.code === 'AUTHORIZATION_DENIED';
    const contract: RecoveryContract = buildContract({
      tool,
      decision,
      classification,
      attempts: ending.kind === 'refused' ? undefined : ending.attempts,
      repairsRemaining: decision.terminal
        ? undefined
        : Math.max(
            0,
            parts.repairBudget - (ending.kind === 'decided' ? (ending.repairAttempts ?? 0) : 0) - 1,
          ),
      idempotencyKey: ending.key,
      resource: refusal && !refusal.resource.startsWith('(') ? refusal.resource : undefined,
      nextPossibleAction: parts.nextPossibleAction,
      verifyWith: decision.code === 'RECONCILE_BY_HAND' ? parts.verifiersOf(call) : undefined,
      status: ending.kind === 'owned-elsewhere' ? 'IN_FLIGHT' : denied ? 'BLOCKED' : undefined,
      plan,
    });
    const base = {
      runId,
      tool,
      toolCallId: call.request.toolCallId,
      idempotencyKey: call.tool.claims ? call.knownKey : '',
    };
    if (refusal) {
      if (refusal.block) {
        state.dispatch({
          type: 'blocked',
          entry: { tool, resource: refusal.resource, reason: decision.code },
          guidance: contract.guidance,
        });
      }
      if (emitter.active) {
        emitter.emit({
          ...base,
          type: 'call.blocked',
          resource: refusal.resource,
          reason: decision.code,
          input: call.request.input,
          at: parts.now(),
        });
      }
    }
    if (!refusal || refusal.counted) {
      state.dispatch({
        type: 'failed',
        tool,
        classification,
        decision,
        guidance: contract.guidance,
        inDoubt:
          ending.kind !== 'refused' && ending.inDoubt && decision.terminal && ending.key
            ? { key: ending.key, code: decision.code }
            : undefined,
      });
      if (denied) {
        if (parts.onDenial === 'stop')
          stop({ status: 'BLOCKED', reason: 'AUTHORIZATION_DENIED', tool });
      } else if (decision.terminal) {
        const blocked = classification.failureClass === 'AUTHORIZATION';
        stop({ status: blocked ? 'BLOCKED' : 'FAILED', reason: decision.code, tool });
      }
    }
    if (emitter.active) emitter.emit({ ...base, type: 'call.failed', contract, at: parts.now() });
    return {
      ok: false,
      contract,
      decision,
      classification,
      ...(ending.error === undefined ? {} : { error: ending.error }),
    };
  };

  const modelFailed: Concluder['modelFailed'] = (classification, decision, reason) => {
    state.dispatch({ type: 'failed', tool: 'model', classification, decision });
    stop({ status: 'FAILED', reason, tool: 'model' });
  };

  return { conclude, stop, modelFailed };
}
