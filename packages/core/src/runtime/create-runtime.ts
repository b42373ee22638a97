import { redactSecrets } from '../classify/redact.js';
import { RecourseError } from '../errors.js';
import { createScopeGuard } from '../scope/scope-guard.js';
import type { Classification, Decision } from '../types.js';
import { createAccessControl } from './access/access-control.js';
import { createApprovalGate } from './access/approvals.js';
import { checkedGrant, recordGrant } from './access/grants.js';
import { createCallRunner } from './call-runner.js';
import { callModelWithRecovery } from './model/call-model.js';
import { closestKey } from './options/closest-key.js';
import { type RecoveryOptions, retryDefaults } from './options/recovery-options.js';
import { createToolTable } from './options/tool-table.js';
import { validatePolicy, validateRecoveryOptions } from './options/validate-options.js';
import type { RecoveryRuntime } from './recovery-runtime.js';
import { buildOutcome } from './run/build-outcome.js';
import { type CompensationReport, compensateWrites } from './run/compensate.js';
import { createConcluder } from './run/conclude.js';
import type { RunMemory } from './run/run-memory.js';
import { RunState } from './run/run-state.js';
import { createRunParts } from './run-parts.js';
import { createTurnCoordinator } from './turn/turn-coordinator.js';

export type { RecoveryRuntime } from './recovery-runtime.js';

const modelStopReason = (classification: Classification) =>
  classification.code === 'QUOTA_EXCEEDED' ? 'MODEL_QUOTA_EXCEEDED' : 'MODEL_UNAVAILABLE';

// A runtime that is garbage collected stops watching its ledger for the run's facts.
const watches = new FinalizationRegistry<RunMemory>((memory) => memory.close());

/** Tells the run's listeners, once per tool, that its resource function threw. */
function reportResourceErrors(runId: string, run: ReturnType<typeof createRunParts>) {
  const reported = new Set<string>();
  return (tool: string, error: unknown) => {
    if (reported.has(tool) || !run.emitter.active) return;
    reported.add(tool);
    const code = RecourseError.isInstance(error)
      ? error.code
      : error instanceof Error
        ? error.name
        : typeof error;
    const text = error instanceof Error ? error.message : String(error);
    run.emitter.emit({
      type: 'resource.failed',
      runId,
      tool,
      code,
      message: redactSecrets(text).slice(0, 500),
      at: run.clock.now(),
    });
  };
}

/** The runtime of one run: its parts, its state, and the calls that go through them. */
export function createRecoveryRuntime(options: RecoveryOptions): RecoveryRuntime {
  validateRecoveryOptions(options);
  const { runId } = options;
  const run = createRunParts(options);
  const tools = createToolTable(options);
  const state = new RunState();
  const nextPossibleAction = options.nextPossibleAction ?? 'request authorized operator';
  const onDenial = options.onDenial ?? 'stop';
  const concluder = createConcluder({
    runId,
    state,
    emitter: run.emitter,
    now: () => run.clock.now(),
    repairBudget: run.repairBudget,
    onDenial,
    nextPossibleAction,
    verifiersOf: (call) => tools.verifiersOf(call.tool),
  });
  const access = createAccessControl({
    guard: createScopeGuard({ allow: options.scope?.allow, deny: options.scope?.deny }),
    memory: run.memory,
    terminal: () => state.terminal,
    onDenial,
    onResourceError: reportResourceErrors(runId, run),
  });

  // The model is gone: the run ends FAILED, and its writes are undone when asked to.
  const endOnModelFailure = async (classification: Classification, decision: Decision) => {
    const wasStopped = state.terminal !== undefined;
    concluder.modelFailed(classification, decision, modelStopReason(classification));
    if (options.autoCompensate && !wasStopped) await compensate();
  };

  let compensating: Promise<CompensationReport> | undefined;
  const compensate = () => {
    compensating ??= compensateWrites(run, state.writes, tools.resolve).then(
      ({ report, inDoubt }) => {
        state.dispatch({
          type: 'compensated',
          compensated: report.compensated,
          failed: report.failed,
          notCompensable: report.not_compensable,
          inDoubt,
          forgotten: report.forgotten ?? 0,
        });
        return report;
      },
    );
    return compensating;
  };

  const calls = createCallRunner({
    run,
    tools,
    state,
    access,
    concluder,
    turns: createTurnCoordinator({ parallelWrites: options.parallelWrites === true }),
    onStopped: options.autoCompensate ? compensate : undefined,
  });

  const approvals = createApprovalGate({
    memory: run.memory,
    dispatch: (action) => state.dispatch(action),
    now: () => run.clock.now(),
    check: (toolName, input) => access.check(tools.resolve(toolName), input),
    grant: (entry) => recordGrant(run, entry),
    onBlocked: (call, resource, reason) => {
      if (!run.emitter.active) return;
      run.emitter.emit({
        type: 'call.blocked',
        runId,
        tool: call.toolName,
        toolCallId: call.toolCallId,
        idempotencyKey: '',
        resource,
        reason,
        input: call.input,
        at: run.clock.now(),
      });
    },
  });

  const hiddenFailures = new Set<string>();
  const unregisterToken = {};
  const runtime: RecoveryRuntime = {
    runId,
    ledger: run.ledger,
    classify: run.classify,
    execute: calls.execute,
    recordFailure: calls.recordFailure,
    recordUnsendableResult: calls.recordUnsendableResult,
    isStopped: () => state.terminal !== undefined,
    takeGuidance() {
      const guidance = state.guidance;
      if (guidance !== undefined) state.dispatch({ type: 'guidance.taken' });
      return guidance;
    },
    unusableTools(toolNames) {
      if (run.memory.known().denials.length === 0 && !state.terminal) return [];
      if (state.terminal || onDenial === 'stop') return [...toolNames];
      return toolNames.filter((name) => !tools.resolve(name).policy.resource);
    },
    policyFor: (toolName) => tools.resolve(toolName).policy,
    declareTool(toolName, policy, layer) {
      validatePolicy(policy, `policies.${toolName}`);
      tools.declare(toolName, policy, layer);
    },
    reportHiddenFailures(toolName, reason) {
      if (hiddenFailures.has(toolName)) return false;
      hiddenFailures.add(toolName);
      if (run.emitter.active)
        run.emitter.emit({
          type: 'tool.failures-hidden',
          runId,
          tool: toolName,
          reason,
          at: run.clock.now(),
        });
      return true;
    },
    registerTools(toolNames) {
      const unused = tools.named
        .filter((name) => !toolNames.includes(name))
        .map((tool) => {
          const suggestion = closestKey(tool, toolNames);
          return suggestion ? { tool, suggestion } : { tool };
        });
      for (const entry of unused) {
        if (run.emitter.active)
          run.emitter.emit({ type: 'policy.unused', runId, ...entry, at: run.clock.now() });
      }
      return unused;
    },
    async callModel(fn, signal, request) {
      const result = await callModelWithRecovery(
        {
          ...run,
          maxAttempts: options.retry?.maxAttempts ?? retryDefaults.maxAttempts,
          span: run.telemetry?.startModel(runId, request),
        },
        fn,
        signal,
      );
      if (!result.ok) await endOnModelFailure(result.classification, result.decision);
      return result;
    },
    async modelFailed(error) {
      // A recourse stop the adapter threw (failureMode 'throw') already ended the run.
      if (state.terminal === undefined) {
        const classification = run.classify(error);
        const reason = modelStopReason(classification);
        await endOnModelFailure(classification, {
          action: 'ABORT',
          code: reason,
          reason: `the model request failed (${classification.code}) after the SDK's own retries`,
          terminal: true,
        });
      }
      return buildOutcome(state.snapshot(), nextPossibleAction);
    },
    outcome: () => buildOutcome(state.snapshot(), nextPossibleAction),
    checkBlocked: (toolName, input) => access.check(tools.resolve(toolName), input),
    async grantAccess(entry) {
      // Async also when it refuses: a bad grant rejects, it never throws at the caller.
      await recordGrant(run, checkedGrant(entry, run.clock.now()));
    },
    requestApproval: (call) => approvals.request(call),
    resolveApproval: (answer) => approvals.resolve(answer),
    compensate,
    close() {
      watches.unregister(unregisterToken);
      run.memory.close();
    },
  };
  // Neither the held value nor the token may reach the runtime, or it is never collected
  // (a closure made here would: every closure of this function shares one scope with it).
  watches.register(runtime, run.memory, unregisterToken);
  return runtime;
}
