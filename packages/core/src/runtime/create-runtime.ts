import type { Classifier } from '../classify/index.js';
import type { Outcome } from '../contract/outcome.js';
import { InvalidOptionsError } from '../errors.js';
import type { AccessGrant, Ledger } from '../ledger/ledger.js';
import { everything } from '../scope/canonical-resource.js';
import { createScopeGuard } from '../scope/scope-guard.js';
import { createAccessControl } from './access/access-control.js';
import {
  type ApprovalAnswer,
  type ApprovalCall,
  type ApprovalRequest,
  createApprovalGate,
} from './access/approvals.js';
import type { BlockCheck } from './access/block-check.js';
import { Call } from './call/call.js';
import type { CallEnding } from './call/call-ending.js';
import { executeCall } from './call/execute-call.js';
import type { ToolCallFailure, ToolCallRequest, ToolCallResult } from './call/tool-call.js';
import { guardCall } from './guard-call.js';
import { callModelWithRecovery, type ModelCallResult } from './model/call-model.js';
import type { ModelRequest } from './model/model-request.js';
import { decideSdkFailure, type SdkFailure } from './model/sdk-failure.js';
import { closestKey } from './options/closest-key.js';
import {
  type RecoveryOptions,
  retryDefaults,
  type ToolPolicy,
} from './options/recovery-options.js';
import { createToolTable } from './options/tool-table.js';
import { validatePolicy, validateRecoveryOptions } from './options/validate-options.js';
import { buildOutcome } from './run/build-outcome.js';
import { type CompensationReport, compensateWrites } from './run/compensate.js';
import { createConcluder } from './run/conclude.js';
import { RunState } from './run/run-state.js';
import { createRunParts } from './run-parts.js';

/** The SDK-independent engine both adapters drive. One per run. */
export interface RecoveryRuntime {
  readonly runId: string;
  readonly ledger: Ledger;
  /** Runs one tool call through scope, ledger, classification and policy. */
  execute(request: ToolCallRequest): Promise<ToolCallResult>;
  /** A failure the SDK reported without calling execute (invalid input, unknown tool). */
  recordFailure(request: SdkFailure): Promise<ToolCallFailure>;
  /** True once the run reached a terminal state: the loop should end. */
  isStopped(): boolean;
  /** Guidance for the model's next step after a failure (repair, re-observe), once. */
  takeGuidance(): string | undefined;
  /** Which of `toolNames` can no longer run because of a denial or a stop. */
  unusableTools(toolNames: readonly string[]): string[];
  /** The tool's policy as it applies: its own, its declared hints, then `defaultPolicy`. */
  policyFor(toolName: string): ToolPolicy;
  /**
   * A policy given when the tool is wrapped: `'hints'` (default; what a tool says of
   * itself, MCP annotations, below the user's own policy) or `'own'` (the user's, over
   * `policies[name]`). Checked like the options: a bad field throws `InvalidOptionsError`.
   */
  declareTool(toolName: string, policy: ToolPolicy, layer?: 'own' | 'hints'): void;
  /** The tools an adapter wrapped: policies naming no wrapped tool are reported (and returned). */
  registerTools(toolNames: readonly string[]): { tool: string; suggestion?: string }[];
  /**
   * A request to the model through the same classifier, backoff and retry budget.
   * `request` describes it for its tracing span (model, provider), when something records.
   */
  callModel<T>(
    fn: () => Promise<T>,
    signal?: AbortSignal | undefined,
    request?: ModelRequest | undefined,
  ): Promise<ModelCallResult<T>>;
  /** Classifies an error with the run's recognisers. */
  readonly classify: Classifier;
  outcome(): Outcome;
  /** The checks `execute` makes before running a call, without running or recording it. */
  checkBlocked(toolName: string, input: unknown): Promise<BlockCheck>;
  /** An operator opens `resource` (and what lies below it) for this run, on every worker. */
  grantAccess(grant: Omit<AccessGrant, 'at'>): Promise<void>;
  /** A blocked call an operator may open: the request to show, or undefined. */
  requestApproval(call: ApprovalCall): Promise<ApprovalRequest | undefined>;
  /** The operator's answer to `requestApproval`: approved grants what was escalated for that call. */
  resolveApproval(answer: ApprovalAnswer): Promise<{ granted: string[] }>;
  /** Undoes the run's completed writes, newest first, each at most once (see `compensate`). */
  compensate(): Promise<CompensationReport>;
}

// A runtime that is garbage collected stops watching its ledger for the run's facts.
const watches = new FinalizationRegistry<() => void>((close) => close());

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
  });
  const access = createAccessControl({
    guard: createScopeGuard({ allow: options.scope?.allow, deny: options.scope?.deny }),
    memory: run.memory,
    terminal: () => state.terminal,
    onDenial,
  });
  const undeclared = new Set<string>();
  let compensating: Promise<CompensationReport> | undefined;

  const compensate = () => {
    compensating ??= compensateWrites(run, state.writes, tools.resolve).then((report) => {
      state.dispatch({
        type: 'compensated',
        compensated: report.compensated,
        failed: report.failed,
        notCompensable: report.not_compensable,
      });
      return report;
    });
    return compensating;
  };

  const grant = async (entry: AccessGrant) => {
    await run.memory.add('grant', entry.resource, entry);
    if (run.emitter.active) {
      run.emitter.emit({
        type: 'access.granted',
        runId,
        resource: entry.resource,
        grantedBy: entry.grantedBy,
        at: entry.at,
      });
    }
  };

  const approvals = createApprovalGate({
    memory: run.memory,
    dispatch: (action) => state.dispatch(action),
    now: () => run.clock.now(),
    check: (toolName, input) => access.check(tools.resolve(toolName), input),
    grant,
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

  const execute = async (request: ToolCallRequest): Promise<ToolCallResult> => {
    const tool = tools.resolve(request.toolName);
    if (tool.effects === 'undeclared' && !undeclared.has(tool.name)) {
      undeclared.add(tool.name);
      if (run.emitter.active) {
        run.emitter.emit({
          type: 'policy.undeclared',
          runId,
          tool: tool.name,
          at: run.clock.now(),
        });
      }
    }
    const call = new Call(run, tool, request);
    if (run.telemetry)
      call.span = run.telemetry.start({
        runId,
        toolName: tool.name,
        toolCallId: request.toolCallId,
      });
    const guarded =
      access.mayRefuse() || run.memory.known().poisonedTools.has(tool.name)
        ? await guardCall(call, access)
        : undefined;
    const wasStopped = state.terminal !== undefined;
    let ending: CallEnding;
    try {
      ending = guarded ?? (await executeCall(call));
    } catch (error) {
      call.span?.abort(error);
      throw error; // the caller's own abort
    }
    const result = concluder.conclude(call, ending);
    call.span?.end(ending, {
      attempts: call.attempts,
      key: tool.claims ? call.knownKey || undefined : undefined,
      recovered:
        call.firstFailure && call.recoveredBy
          ? { failureClass: call.firstFailure.failureClass, action: call.recoveredBy }
          : undefined,
    });
    if (options.autoCompensate && !wasStopped && state.terminal) await compensate();
    return result;
  };

  const runtime: RecoveryRuntime = {
    runId,
    ledger: run.ledger,
    classify: run.classify,
    execute,
    async recordFailure(request) {
      // Traced like any call (attempts 0), so a repair or poison the SDK caused shows too.
      const span = run.telemetry?.start({
        runId,
        toolName: request.toolName,
        toolCallId: request.toolCallId,
      });
      const ending = state.terminal ? access.runStopped() : await decideSdkFailure(run, request);
      const call = new Call(run, tools.resolve(request.toolName), {
        toolName: request.toolName,
        toolCallId: request.toolCallId,
        input: request.input,
        execute: () => undefined, // never runs: the SDK refused the call itself
      });
      const result = concluder.conclude(call, { ...ending, error: request.error });
      span?.end(ending, { attempts: 0 });
      return result as ToolCallFailure;
    },
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
      if (!result.ok) {
        const reason =
          result.classification.code === 'QUOTA_EXCEEDED'
            ? 'MODEL_QUOTA_EXCEEDED'
            : 'MODEL_UNAVAILABLE';
        concluder.modelFailed(result.classification, result.decision, reason);
      }
      return result;
    },
    outcome: () => buildOutcome(state.snapshot(), nextPossibleAction),
    checkBlocked: (toolName, input) => access.check(tools.resolve(toolName), input),
    async grantAccess(entry) {
      const resource = typeof entry.resource === 'string' ? entry.resource.trim() : '';
      if (resource === '' || resource === everything) {
        throw new InvalidOptionsError(
          'grant.resource',
          'must name one resource; `*` cannot be granted',
        );
      }
      if (typeof entry.grantedBy !== 'string' || entry.grantedBy.trim() === '') {
        throw new InvalidOptionsError('grant.grantedBy', 'must name who granted access');
      }
      await grant({ ...entry, resource, at: run.clock.now() });
    },
    requestApproval: (call) => approvals.request(call),
    resolveApproval: (answer) => approvals.resolve(answer),
    compensate,
  };
  watches.register(runtime, () => run.memory.close());
  return runtime;
}
