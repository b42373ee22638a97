import type { Clock } from '../clock.js';
import type { Ledger } from '../ledger/ledger.js';
import type { RecoveryEvent } from './events.js';
import type { RecoveryOptions, ToolPolicy } from './options.js';
import type { RecoveryContract } from './recovery-contract.js';
import { RunState } from './run-state.js';
import type { ToolCallRequest } from './tool-call.js';

export type CallIdentity = Pick<ToolCallRequest, 'toolName' | 'toolCallId'> & { input?: unknown };

/** What the parts of one run share: its identity, store, clock, state and voice. */
export interface RunContext {
  readonly runId: string;
  readonly ledger: Ledger;
  readonly clock: Clock;
  readonly state: RunState;
  readonly onDenial: 'stop' | 'continue';
  readonly nextPossibleAction: string;
  emit(event: RecoveryEvent): void;
  /** The contract a call's failure hands the model, as an event. */
  emitFailed(call: CallIdentity, key: string, contract: RecoveryContract): void;
  /** Makes the run terminal (the first cause wins) and says so once. */
  stop(status: 'BLOCKED' | 'FAILED', reason: string, tool: string): void;
  policyFor(toolName: string): ToolPolicy;
}

export function createRunContext(
  options: RecoveryOptions,
  parts: { ledger: Ledger; clock: Clock },
): RunContext {
  const { runId } = options;
  const { clock } = parts;
  const policies = options.policies ?? {};
  const nextPossibleAction = options.nextPossibleAction ?? 'request authorized operator';
  const state = new RunState(nextPossibleAction);
  const emit = (event: RecoveryEvent) => {
    try {
      options.onEvent?.(event);
    } catch {
      // A listener's bug must not change what happens to the tool call.
    }
  };
  return {
    runId,
    ledger: parts.ledger,
    clock,
    state,
    onDenial: options.onDenial ?? 'stop',
    nextPossibleAction,
    emit,
    emitFailed: (call, key, contract) =>
      emit({
        type: 'call.failed',
        runId,
        tool: call.toolName,
        toolCallId: call.toolCallId,
        idempotencyKey: key,
        contract,
        at: clock.now(),
      }),
    stop(status, reason, tool) {
      if (state.stop({ status, reason, tool })) {
        emit({ type: 'run.stopped', runId, outcome: state.outcome(), at: clock.now() });
      }
    },
    policyFor: (toolName) => policies[toolName] ?? {},
  };
}
