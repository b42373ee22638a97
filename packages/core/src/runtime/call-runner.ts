import type { Classification } from '../types.js';
import { type AccessControl, resourcesOf } from './access/access-control.js';
import { Call } from './call/call.js';
import { executeCall } from './call/execute-call.js';
import type {
  CallEnding,
  CallFailureEnding,
  ToolCallFailure,
  ToolCallRequest,
  ToolCallResult,
} from './call/tool-call.js';
import { guardCall } from './guard-call.js';
import { decideSdkFailure, type SdkFailure } from './model/sdk-failure.js';
import type { ToolTable } from './options/tool-table.js';
import type { Concluder } from './run/conclude.js';
import type { RunState } from './run/run-state.js';
import type { RunParts } from './run-parts.js';
import type { TurnCoordinator, TurnPlace } from './turn/turn-coordinator.js';

export interface CallRunnerParts {
  run: RunParts;
  tools: ToolTable;
  state: RunState;
  access: AccessControl;
  concluder: Concluder;
  /** The calls of each turn, in order (see `turn/turn-coordinator.ts`). */
  turns: TurnCoordinator;
  /** Called when a call stopped the run (by executing or by the SDK's refusal). */
  onStopped?: (() => Promise<unknown>) | undefined;
}

export interface CallRunner {
  execute(request: ToolCallRequest): Promise<ToolCallResult>;
  recordFailure(request: SdkFailure): Promise<ToolCallFailure>;
  recordUnsendableResult(request: SdkFailure): Promise<ToolCallFailure>;
}

/**
 * One tool call from request to result: traced, refused before it runs when the run's
 * facts say so, executed with recovery otherwise, and concluded into the run's state.
 */
export function createCallRunner(parts: CallRunnerParts): CallRunner {
  const { run, tools, state, access, concluder, turns, onStopped } = parts;
  const undeclared = new Set<string>();

  const noteUndeclared = (toolName: string) => {
    if (undeclared.has(toolName)) return;
    undeclared.add(toolName);
    if (run.emitter.active) {
      run.emitter.emit({
        type: 'policy.undeclared',
        runId: run.runId,
        tool: toolName,
        at: run.clock.now(),
      });
    }
  };

  const execute = (request: ToolCallRequest): Promise<ToolCallResult> => {
    const tool = tools.resolve(request.toolName);
    if (tool.effects === 'undeclared') noteUndeclared(tool.name);
    const call = new Call(run, tool, request);
    // Joined before anything is awaited: the turn's order is the order calls are handed over.
    const place = joinTurn(turns, call);
    try {
      return runCall(call, place);
    } catch (error) {
      // A throw before the first await (a tracer's, the guard's) rejects, as from an async
      // function, and the call leaves its turn.
      return abortCall(call, place, error);
    }
  };

  /** Asks the guard only when the run's facts could refuse: undefined costs no promise. */
  const guard = (call: Call): Promise<CallEnding | undefined> | undefined =>
    access.mayRefuse() || run.memory.known().poisonedTools.has(call.tool.name)
      ? guardCall(call, access)
      : undefined;

  /**
   * Refused before it runs, or undefined: guarded, and guarded again after its turn's wait.
   * Synchronous when nothing could refuse and nothing is waited for (the common path).
   */
  const admit = (
    call: Call,
    place: TurnPlace | undefined,
  ): Promise<CallEnding | undefined> | undefined => {
    const refused = guard(call);
    if (refused === undefined) return place?.waits ? waitTurn(call, place) : undefined;
    return refused.then((ending) => (ending || !place?.waits ? ending : waitTurn(call, place)));
  };

  const waitTurn = (call: Call, place: TurnPlace) =>
    place.wait(call.request.signal, () => guard(call));

  /**
   * The call admitted, executed and concluded. Admitted at once (nothing could refuse it,
   * nothing to wait for: the common path), it runs without an async frame of its own.
   */
  const runCall = (call: Call, place: TurnPlace | undefined): Promise<ToolCallResult> => {
    const { tool, request } = call;
    if (run.telemetry) {
      call.span = run.telemetry.start(run.runId, tool.name, request.toolCallId);
    }
    const admitted = admit(call, place);
    if (admitted !== undefined) return runAdmitted(call, place, admitted);
    const wasStopped = state.terminal !== undefined;
    return executeCall(call).then(
      (ending) => finishCall(call, place, ending, wasStopped),
      (error: unknown) => abortCall(call, place, error),
    );
  };

  /** The same, once the guard answered or the turn's wait is over. */
  const runAdmitted = async (
    call: Call,
    place: TurnPlace | undefined,
    admitted: Promise<CallEnding | undefined>,
  ): Promise<ToolCallResult> => {
    let ending: CallEnding;
    let wasStopped: boolean;
    try {
      const refused = await admitted;
      wasStopped = state.terminal !== undefined;
      ending = refused ?? (await executeCall(call));
    } catch (error) {
      return abortCall(call, place, error);
    }
    return finishCall(call, place, ending, wasStopped);
  };

  /** How the call ended, into the run's state and its span; the turn forgets it after. */
  const finishCall = (
    call: Call,
    place: TurnPlace | undefined,
    ending: CallEnding,
    wasStopped: boolean,
  ): ToolCallResult | Promise<ToolCallResult> => {
    let result: ToolCallResult;
    try {
      result = concluder.conclude(call, ending);
      call.span?.end(ending, {
        attempts: call.attempts,
        key: spanKey(call),
        recovered:
          call.firstFailure && call.recoveredBy
            ? { failureClass: call.firstFailure.failureClass, action: call.recoveredBy }
            : undefined,
      });
    } catch (error) {
      place?.leave();
      throw error;
    }
    if (!onStopped || wasStopped || !state.terminal) {
      // The turn forgets the call once it settled: the later calls waiting for it wake.
      place?.leave();
      return result;
    }
    return onStopped()
      .finally(() => place?.leave())
      .then(() => result);
  };

  /** The caller's own abort (or a pause): the span says so, and the error goes on up. */
  const abortCall = async (
    call: Call,
    place: TurnPlace | undefined,
    error: unknown,
  ): Promise<never> => {
    try {
      call.span?.abort({ attempts: call.attempts, key: spanKey(call), failure: call.lastDecided });
    } finally {
      place?.leave();
    }
    throw error;
  };

  const recordFailure = async (
    request: SdkFailure,
    known?: Classification | undefined,
  ): Promise<ToolCallFailure> => {
    // Traced like any call (attempts 0), so a repair or poison the SDK caused shows too.
    const span = run.telemetry?.start(run.runId, request.toolName, request.toolCallId);
    const wasStopped = state.terminal !== undefined;
    // A later write of its turn waits for this verdict (a poison step stops the turn too).
    const place = turns.join(request.turn, {
      toolCallId: request.toolCallId,
      mayWrite: false,
      resources: () => [],
    });
    let ending: CallFailureEnding;
    try {
      ending = wasStopped ? access.runStopped() : await decideSdkFailure(run, request, known);
    } catch (error) {
      place?.leave();
      throw error;
    }
    const call = new Call(run, tools.resolve(request.toolName), {
      toolName: request.toolName,
      toolCallId: request.toolCallId,
      input: request.input,
      execute: () => undefined, // never runs: the SDK refused the call itself
    });
    const result = concluder.conclude(call, { ...ending, error: request.error });
    place?.leave();
    span?.end(ending, { attempts: 0 });
    if (onStopped && !wasStopped && state.terminal) await onStopped();
    return result as ToolCallFailure;
  };

  /**
   * A call that succeeded, but whose result the SDK cannot send to the model (JSON
   * rejects it: a throwing `toJSON` or getter, a BigInt, a cycle). A write happened: the
   * model is told, as a duplicate would be, not to send it again but to read the state;
   * a read cannot succeed as asked. Counted per fingerprint like any failure.
   */
  const recordUnsendableResult = (request: SdkFailure): Promise<ToolCallFailure> => {
    const wrote = tools.resolve(request.toolName).effects !== 'read';
    const message = `${request.toolName} returned a result that cannot be sent to the model: ${run.classify(request.error).message}`;
    const classification: Classification = wrote
      ? { failureClass: 'UNKNOWN_OUTCOME', code: 'RESULT_NOT_STORED', message }
      : { failureClass: 'PERMANENT', code: 'RESULT_NOT_SERIALISABLE', message };
    return recordFailure(request, classification);
  };

  return { execute, recordFailure: (request) => recordFailure(request), recordUnsendableResult };
}

/** The key a call's span names: a claimed call's, once it can be had. */
function spanKey(call: Call): string | undefined {
  return call.tool.claims ? call.knownKey || undefined : undefined;
}

/** The call's place in its turn, when the adapter named one. */
function joinTurn(turns: TurnCoordinator, call: Call): TurnPlace | undefined {
  const { request, tool } = call;
  if (request.turn === undefined) return undefined;
  return turns.join(request.turn, {
    toolCallId: request.toolCallId,
    mayWrite: tool.effects !== 'read',
    resources: () => resourcesOf(tool, request.input),
  });
}
