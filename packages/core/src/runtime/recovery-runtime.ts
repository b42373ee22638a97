import { createClassifier } from '../classify/index.js';
import { systemClock, systemRandom } from '../clock.js';
import { InvalidOptionsError } from '../errors.js';
import {
  boundKey,
  deriveIdempotencyKey,
  keyFromPayloadHash,
  payloadHash,
} from '../keys/idempotency-key.js';
import type { Denial, Ledger } from '../ledger/ledger.js';
import { MemoryLedger } from '../ledger/memory-ledger.js';
import { validateBackoff } from '../policy/backoff.js';
import {
  decideRecovery,
  defaultMaxAttempts,
  defaultRepairBudget,
} from '../policy/decide-recovery.js';
import { failureFingerprint } from '../policy/fingerprint.js';
import { createRetryBudget, type RetryBudget } from '../policy/retry-budget.js';
import { createScopeGuard, everything } from '../scope/index.js';
import type { Classification, Decision } from '../types.js';
import {
  type ApprovalAnswer,
  type ApprovalCall,
  type ApprovalRequest,
  createApprovalGate,
} from './approval.js';
import { type BlockCheck, checkCall, findBlock } from './approval-check.js';
import { type AccessGrant, createGrantBook } from './approval-grants.js';
import { callModelWithRecovery, type ModelCallResult } from './call-model.js';
import type { RecoveryEvent } from './events.js';
import { executeCall } from './execute-call.js';
import type { RecoveryOptions, ToolPolicy } from './options.js';
import { validateRecoveryOptions } from './options.js';
import type { Outcome } from './outcome.js';
import { buildContract, type RecoveryContract } from './recovery-contract.js';
import { RunState } from './run-state.js';

export interface ToolCallRequest {
  toolName: string;
  toolCallId: string;
  input: unknown;
  /** The run's abort signal: aborts backoff sleeps; the caller's abort is rethrown untouched. */
  signal?: AbortSignal | undefined;
  execute: (input: unknown) => unknown;
}

export type ToolCallFailure = {
  ok: false;
  contract: RecoveryContract;
  decision: Decision;
  classification: Classification;
  error?: unknown;
};

export type ToolCallResult =
  | { ok: true; value: unknown; deduplicated: boolean; degraded: boolean }
  | ToolCallFailure;

/** The SDK-independent engine both adapters drive. One per run. */
export interface RecoveryRuntime {
  readonly runId: string;
  readonly ledger: Ledger;
  /** Runs one tool call through scope, ledger, classification and policy. */
  execute(request: ToolCallRequest): Promise<ToolCallResult>;
  /** A failure the SDK reported without calling execute (invalid input, unknown tool). */
  recordFailure(
    request: Omit<ToolCallRequest, 'execute' | 'signal'> & { error: unknown },
  ): Promise<ToolCallFailure>;
  /** True once the run reached a terminal state: the loop should end. */
  isStopped(): boolean;
  /** Guidance for the model's next step after a failure (repair, re-observe), once. */
  takeGuidance(): string | undefined;
  /** Which of `toolNames` can no longer run because of a denial. */
  unusableTools(toolNames: readonly string[]): string[];
  policyFor(toolName: string): ToolPolicy;
  /**
   * Sends a request to the model through the same classifier, backoff and retry budget.
   * A failure that is not retried ends the run (FAILED, e.g. MODEL_UNAVAILABLE).
   */
  callModel<T>(fn: () => Promise<T>, signal?: AbortSignal | undefined): Promise<ModelCallResult<T>>;
  /** Classifies an error with the run's recognisers. */
  classify(error: unknown, hints?: { sideEffects?: boolean | undefined }): Classification;
  outcome(): Outcome;
  /** The checks `execute` makes before running a call, without running or recording it. */
  checkBlocked(toolName: string, input: unknown): Promise<BlockCheck>;
  /**
   * An operator opens `resource` (and what lies below it) for this run, on every worker:
   * earlier denials and scope rules no longer block it. `*` cannot be granted, and a tool
   * without a `resource` function stays blocked (it touches everything).
   */
  grantAccess(grant: Omit<AccessGrant, 'at'>): Promise<void>;
  /** A blocked call an operator may open: the request to show, or undefined (not blocked, or not grantable). */
  requestApproval(call: ApprovalCall): Promise<ApprovalRequest | undefined>;
  /** The operator's answer to `requestApproval`: approved grants what was escalated for that call. */
  resolveApproval(answer: ApprovalAnswer): Promise<{ granted: string[] }>;
}

export function createRecoveryRuntime(options: RecoveryOptions): RecoveryRuntime {
  validateRecoveryOptions(options);
  const { runId } = options;
  const ledger = options.ledger ?? new MemoryLedger();
  const clock = options.clock ?? systemClock;
  const policies = options.policies ?? {};
  const onDenial = options.onDenial ?? 'stop';
  const classify = createClassifier({ recognisers: [...(options.recognisers ?? [])] });
  const guard = createScopeGuard({ allow: options.scope?.allow, deny: options.scope?.deny });
  const nextPossibleAction = options.nextPossibleAction ?? 'request authorized operator';
  const state = new RunState(nextPossibleAction);
  const budget = resolveBudget(options.retry?.budget);
  const backoff = validateBackoff(options.retry ?? {});
  const repairBudget = options.repairBudget ?? defaultRepairBudget;
  let denials: Denial[] = [];
  const grants = createGrantBook({ runId, ledger });

  const emit = (event: RecoveryEvent) => {
    try {
      options.onEvent?.(event);
    } catch {
      // A listener's bug must not change what happens to the tool call.
    }
  };
  const emitFailed = (
    request: Pick<ToolCallRequest, 'toolName' | 'toolCallId'> & { input?: unknown },
    key: string,
    contract: RecoveryContract,
  ) =>
    emit({
      type: 'call.failed',
      runId,
      tool: request.toolName,
      toolCallId: request.toolCallId,
      idempotencyKey: key,
      contract,
      at: clock.now(),
    });
  const policyFor = (toolName: string): ToolPolicy => policies[toolName] ?? {};
  const resourcesOf = (policy: ToolPolicy, input: unknown): string[] | undefined => {
    if (!policy.resource) return undefined;
    try {
      const value = policy.resource(input);
      const list = (typeof value === 'string' ? [value] : [...value])
        .map((r) => r.trim())
        .filter(Boolean);
      return list; // [] touches nothing (`echo hi`); no resource function touches everything
    } catch {
      return [everything]; // cannot tell what it touches: fail closed
    }
  };
  const refreshDenials = async () => {
    try {
      denials = await ledger.listDenials(runId);
    } catch {
      // Keep the denials known locally: a store outage must not reopen a closed route.
    }
    return denials;
  };

  const stop = (status: 'BLOCKED' | 'FAILED', reason: string, tool: string) => {
    if (state.stop({ status, reason, tool })) {
      emit({ type: 'run.stopped', runId, outcome: state.outcome(), at: clock.now() });
    }
  };

  const block = async (
    request: Pick<ToolCallRequest, 'toolName' | 'toolCallId'> & { input?: unknown },
    key: string,
    resource: string,
    code: string,
    record: { capability?: string | undefined } | undefined,
  ): Promise<ToolCallFailure> => {
    const classification: Classification = {
      failureClass: 'AUTHORIZATION',
      code,
      message: `${request.toolName} may not reach ${resource}`,
    };
    const decision: Decision = {
      action: 'ABORT',
      code,
      reason: 'blocked before execution',
      terminal: true,
    };
    if (record) await recordDenial(request.toolName, resource, code, record.capability);
    state.blocked.push({ tool: request.toolName, resource, reason: code });
    emit({
      type: 'call.blocked',
      input: request.input,
      runId,
      tool: request.toolName,
      toolCallId: request.toolCallId,
      idempotencyKey: key,
      resource,
      reason: code,
      at: clock.now(),
    });
    const contract = buildContract({
      tool: request.toolName,
      decision,
      classification,
      resource,
      nextPossibleAction: nextPossibleAction,
      status: 'BLOCKED',
    });
    state.guidance = contract.guidance;
    if (onDenial === 'stop') stop('BLOCKED', 'AUTHORIZATION_DENIED', request.toolName);
    return { ok: false, contract, decision, classification };
  };

  const recordDenial = async (
    tool: string,
    resource: string,
    reason: string,
    capability?: string,
  ) => {
    const denial: Denial = {
      resource,
      tool,
      reason,
      at: clock.now(),
      ...(capability ? { capability } : {}),
    };
    if (!denials.some((d) => d.resource === resource && d.capability === denial.capability))
      denials = [...denials, denial];
    try {
      await ledger.addDenial(runId, denial);
    } catch {
      // Remembered locally; other workers learn it when the store is back.
    }
    emit({ type: 'denial.recorded', runId, denial, at: clock.now() });
  };

  /** Every call after the run stopped: refused, and the model is told the run is over. */
  const runStopped = (
    request: Pick<ToolCallRequest, 'toolName' | 'toolCallId'> & { input?: unknown },
    key: string,
  ): ToolCallFailure => {
    const terminal = state.terminal!;
    const classification: Classification = {
      failureClass: terminal.status === 'BLOCKED' ? 'AUTHORIZATION' : 'PERMANENT',
      code: 'RUN_STOPPED',
      message: 'the run has stopped',
    };
    const decision: Decision = {
      action: 'ABORT',
      code: 'RUN_STOPPED',
      reason: `the run stopped earlier (${terminal.reason})`,
      terminal: true,
    };
    emit({
      type: 'call.blocked',
      input: request.input,
      runId,
      tool: request.toolName,
      toolCallId: request.toolCallId,
      idempotencyKey: key,
      resource: '(run stopped)',
      reason: 'RUN_STOPPED',
      at: clock.now(),
    });
    const contract = buildContract({
      tool: request.toolName,
      decision,
      classification,
      status: terminal.status === 'BLOCKED' ? 'BLOCKED' : 'FAILED',
      nextPossibleAction,
    });
    return { ok: false, contract, decision, classification };
  };

  const blockedBefore = async (
    request: ToolCallRequest,
    policy: ToolPolicy,
    key: string,
    resources: string[] | undefined,
  ) => {
    if (state.terminal?.status === 'FAILED') return runStopped(request, key);
    const known = await refreshDenials();
    // Scope refusals are not remembered as denials: the rules are checked on every call
    // anyway, and a call wider than a rule (all of github.com) must not close what the
    // rule allows. Operator grants lift both (see findBlock).
    const found = await findBlock({
      resources,
      capability: policy.capability,
      guard,
      denials: known,
      grants,
      checkScope: !state.terminal,
    });
    if (found) return block(request, key, found.resource, found.reason, undefined);
    if (!state.terminal && onDenial === 'stop' && known.length > 0) {
      stop('BLOCKED', 'AUTHORIZATION_DENIED', known[0]!.tool); // denied on another worker
    }
    if (state.terminal) return runStopped(request, key);
    return undefined;
  };

  const checkBlocked = async (toolName: string, input: unknown): Promise<BlockCheck> => {
    const stoppedCheck = { blocked: true, resource: '(run stopped)', reason: 'RUN_STOPPED' };
    if (state.terminal?.status === 'FAILED')
      return { ...stoppedCheck, grantable: false, resources: [] };
    const policy = policyFor(toolName);
    const check = await checkCall({
      resources: resourcesOf(policy, input),
      capability: policy.capability,
      guard,
      denials: await refreshDenials(),
      grants,
      checkScope: !state.terminal,
      stopped: state.terminal !== undefined,
    });
    if (check.blocked || !state.terminal) return check;
    return { ...stoppedCheck, grantable: false, resources: [] };
  };
  const approvals = createApprovalGate({
    runId,
    ledger,
    grants,
    state,
    now: () => clock.now(),
    check: checkBlocked,
    onBlocked: (call, resource, reason) =>
      emit({
        type: 'call.blocked',
        input: call.input,
        runId,
        tool: call.toolName,
        toolCallId: call.toolCallId,
        idempotencyKey: deriveIdempotencyKey({ runId, toolName: call.toolName, input: call.input }),
        resource,
        reason,
        at: clock.now(),
      }),
  });

  return {
    runId,
    ledger,
    policyFor,
    checkBlocked,
    async grantAccess(grant) {
      const resource = typeof grant.resource === 'string' ? grant.resource.trim() : '';
      if (resource === '' || resource === everything)
        throw new InvalidOptionsError(
          'grant.resource',
          'must name one resource; `*` cannot be granted',
        );
      if (typeof grant.grantedBy !== 'string' || grant.grantedBy.trim() === '')
        throw new InvalidOptionsError('grant.grantedBy', 'must name who granted access');
      await grants.add({ ...grant, resource, at: clock.now() });
    },
    requestApproval: (call) => approvals.request(call),
    resolveApproval: (answer) => approvals.resolve(answer),
    async execute(request) {
      const policy = policyFor(request.toolName);
      const inputHash = payloadHash(request.input);
      const key = policy.key
        ? boundKey(policy.key(request.input, { runId, toolName: request.toolName }))
        : keyFromPayloadHash(runId, request.toolName, inputHash);
      const resources = resourcesOf(policy, request.input);
      const blocked = await blockedBefore(request, policy, key, resources);
      if (blocked) {
        emitFailed(request, key, blocked.contract);
        return blocked;
      }
      const result = await executeCall({
        runId,
        request,
        policy,
        key,
        payloadHash: inputHash,
        ledger,
        clock,
        emit,
        classify,
        budget,
        backoff,
        state,
        random: options.random ?? systemRandom,
        maxAttempts: policy.maxAttempts ?? options.retry?.maxAttempts ?? defaultMaxAttempts,
        repairBudget,
        inFlightWaitMs: options.inFlightWaitMs ?? 5_000,
        fingerprint: (classification) =>
          failureFingerprint({ tool: request.toolName, input: request.input, classification }),
      });
      if (
        !result.ok &&
        result.classification.failureClass === 'AUTHORIZATION' &&
        result.decision.code === 'AUTHORIZATION_DENIED'
      ) {
        for (const resource of resources ?? [`tool:${request.toolName}`])
          await recordDenial(
            request.toolName,
            resource,
            result.classification.code,
            policy.capability,
          );
        result.contract = {
          ...result.contract,
          status: 'BLOCKED',
          next_possible_action: nextPossibleAction,
        };
        if (onDenial === 'stop') stop('BLOCKED', 'AUTHORIZATION_DENIED', request.toolName);
      } else if (!result.ok && result.decision.terminal) {
        stop('FAILED', result.decision.code, request.toolName);
      }
      if (!result.ok) emitFailed(request, key, result.contract);
      return result;
    },
    async recordFailure(request) {
      if (state.terminal) {
        // The SDK refused a call after the run stopped (e.g. a tool prepareStep removed):
        // a consequence of the stop, not a new failure to repair.
        const key = deriveIdempotencyKey({
          runId,
          toolName: request.toolName,
          input: request.input,
        });
        const stopped = runStopped(request, key);
        emitFailed(request, key, stopped.contract);
        return { ...stopped, error: request.error };
      }
      const classification = classify(request.error);
      const fingerprint = failureFingerprint({
        tool: request.toolName,
        input: request.input,
        classification,
      });
      const counter = `repair:${fingerprint}`;
      const repairAttempts = await ledger.getCounter(runId, counter).catch(() => 0);
      const decision = decideRecovery(
        {
          tool: request.toolName,
          failureClass: classification.failureClass,
          sideEffects: false,
          attempts: 1,
          repairAttempts,
        },
        { repairBudget, maxAttempts: 1 },
      );
      const key = deriveIdempotencyKey({ runId, toolName: request.toolName, input: request.input });
      const base = {
        runId,
        tool: request.toolName,
        toolCallId: request.toolCallId,
        idempotencyKey: key,
        at: clock.now(),
      };
      emit({
        ...base,
        type: 'failure.classified',
        attempt: 1,
        classification,
        error: request.error,
      });
      emit({ ...base, type: 'decision.made', attempt: 1, decision, fingerprint, repairAttempts });
      if (!decision.terminal) await ledger.incrementCounter(runId, counter).catch(() => 0);
      const contract = buildContract({
        tool: request.toolName,
        decision,
        classification,
        repairsRemaining: Math.max(0, repairBudget - repairAttempts - 1),
      });
      state.recordFailure(request.toolName, classification, decision, contract.guidance);
      if (decision.terminal)
        stop(
          classification.failureClass === 'AUTHORIZATION' ? 'BLOCKED' : 'FAILED',
          decision.code,
          request.toolName,
        );
      emitFailed(request, key, contract);
      return { ok: false, contract, decision, classification, error: request.error };
    },
    async callModel(fn, signal) {
      const result = await callModelWithRecovery(
        {
          clock,
          classify,
          budget,
          backoff,
          random: options.random ?? systemRandom,
          maxAttempts: options.retry?.maxAttempts ?? defaultMaxAttempts,
        },
        fn,
        signal,
      );
      if (!result.ok) {
        state.failures.push({
          tool: 'model',
          failure_class: result.classification.failureClass,
          code: result.classification.code,
          recovery: result.decision.action,
        });
        stop(
          'FAILED',
          result.classification.code === 'QUOTA_EXCEEDED'
            ? 'MODEL_QUOTA_EXCEEDED'
            : 'MODEL_UNAVAILABLE',
          'model',
        );
      }
      return result;
    },
    classify,
    isStopped: () => state.terminal !== undefined,
    takeGuidance() {
      const guidance = state.guidance;
      state.guidance = undefined;
      return guidance;
    },
    unusableTools(toolNames) {
      if (denials.length === 0 && !state.terminal) return [];
      if (state.terminal || onDenial === 'stop') return [...toolNames];
      return toolNames.filter((name) => !policyFor(name).resource);
    },
    outcome: () => state.outcome(),
  };
}

function resolveBudget(
  option: RecoveryOptions['retry'] extends infer R
    ? R extends { budget?: infer B }
      ? B
      : never
    : never,
): RetryBudget | undefined {
  if (option === false) return undefined;
  if (option && typeof (option as RetryBudget).canRetry === 'function')
    return option as RetryBudget;
  return createRetryBudget((option ?? {}) as Parameters<typeof createRetryBudget>[0]);
}
