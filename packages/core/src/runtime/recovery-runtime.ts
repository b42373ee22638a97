import { createClassifier } from '../classify/index.js';
import { systemClock, systemRandom } from '../clock.js';
import { InvalidOptionsError } from '../errors.js';
import {
  boundKey,
  deriveIdempotencyKey,
  keyFromPayloadHash,
  payloadHash,
} from '../keys/idempotency-key.js';
import type { Ledger } from '../ledger/ledger.js';
import { MemoryLedger } from '../ledger/memory-ledger.js';
import { validateBackoff } from '../policy/backoff.js';
import { defaultMaxAttempts, defaultRepairBudget } from '../policy/decide-recovery.js';
import { failureFingerprint } from '../policy/fingerprint.js';
import { createRetryBudget, type RetryBudget } from '../policy/retry-budget.js';
import { createScopeGuard, everything } from '../scope/index.js';
import type { Classification } from '../types.js';
import { createAccessControl } from './access-control.js';
import {
  type ApprovalAnswer,
  type ApprovalCall,
  type ApprovalRequest,
  createApprovalGate,
} from './approval.js';
import type { BlockCheck } from './approval-check.js';
import { type AccessGrant, createGrantBook } from './approval-grants.js';
import { callModelWithRecovery, type ModelCallResult } from './call-model.js';
import { executeCall } from './execute-call.js';
import type { RecoveryOptions, ToolPolicy } from './options.js';
import { validateRecoveryOptions } from './options.js';
import type { Outcome } from './outcome.js';
import { createRunContext } from './run-context.js';
import { createSdkFailureRecorder, type SdkFailure } from './sdk-failure.js';
import type { ToolCallFailure, ToolCallRequest, ToolCallResult } from './tool-call.js';

export type { ToolCallFailure, ToolCallRequest, ToolCallResult } from './tool-call.js';

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
  const random = options.random ?? systemRandom;
  const run = createRunContext(options, { ledger, clock });
  const { state } = run;
  const classify = createClassifier({ recognisers: [...(options.recognisers ?? [])] });
  const grants = createGrantBook({ runId, ledger });
  const access = createAccessControl(run, {
    guard: createScopeGuard({ allow: options.scope?.allow, deny: options.scope?.deny }),
    grants,
  });
  const budget = resolveBudget(options.retry?.budget);
  const backoff = validateBackoff(options.retry ?? {});
  const repairBudget = options.repairBudget ?? defaultRepairBudget;
  const maxAttempts = options.retry?.maxAttempts ?? defaultMaxAttempts;
  const recordFailure = createSdkFailureRecorder(run, { access, classify, repairBudget });
  const approvals = createApprovalGate({
    runId,
    ledger,
    grants,
    state,
    now: () => clock.now(),
    check: access.check,
    onBlocked: (call, resource, reason) =>
      run.emit({
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

  const execute = async (request: ToolCallRequest): Promise<ToolCallResult> => {
    const policy = run.policyFor(request.toolName);
    const inputHash = payloadHash(request.input);
    const key = policy.key
      ? boundKey(policy.key(request.input, { runId, toolName: request.toolName }))
      : keyFromPayloadHash(runId, request.toolName, inputHash);
    const resources = access.resourcesOf(policy, request.input);
    const refused = await access.refuse(request, policy, key, resources);
    if (refused) {
      run.emitFailed(request, key, refused.contract);
      return refused;
    }
    const result = await executeCall({
      runId,
      request,
      policy,
      key,
      payloadHash: inputHash,
      ledger,
      clock,
      emit: run.emit,
      classify,
      budget,
      backoff,
      state,
      random,
      maxAttempts: policy.maxAttempts ?? maxAttempts,
      repairBudget,
      inFlightWaitMs: options.inFlightWaitMs ?? 5_000,
      fingerprint: (classification) =>
        failureFingerprint({ tool: request.toolName, input: request.input, classification }),
    });
    if (result.ok) return result;
    if (result.decision.code === 'AUTHORIZATION_DENIED') {
      // Denied: remember what the call reaches (a tool without resources: the tool itself),
      // so that no other route reaches it, on any worker, after any restart.
      await access.rememberDenial(
        request.toolName,
        resources ?? [`tool:${request.toolName}`],
        result.classification.code,
        policy.capability,
      );
      result.contract = {
        ...result.contract,
        status: 'BLOCKED',
        next_possible_action: run.nextPossibleAction,
      };
      if (run.onDenial === 'stop') run.stop('BLOCKED', 'AUTHORIZATION_DENIED', request.toolName);
    } else if (result.decision.terminal) {
      run.stop('FAILED', result.decision.code, request.toolName);
    }
    run.emitFailed(request, key, result.contract);
    return result;
  };

  return {
    runId,
    ledger,
    policyFor: run.policyFor,
    execute,
    recordFailure,
    classify,
    checkBlocked: access.check,
    async grantAccess(grant) {
      const resource = typeof grant.resource === 'string' ? grant.resource.trim() : '';
      if (resource === '' || resource === everything) {
        throw new InvalidOptionsError(
          'grant.resource',
          'must name one resource; `*` cannot be granted',
        );
      }
      if (typeof grant.grantedBy !== 'string' || grant.grantedBy.trim() === '') {
        throw new InvalidOptionsError('grant.grantedBy', 'must name who granted access');
      }
      await grants.add({ ...grant, resource, at: clock.now() });
      run.emit({
        type: 'access.granted',
        runId,
        resource,
        grantedBy: grant.grantedBy,
        at: clock.now(),
      });
    },
    requestApproval: (call) => approvals.request(call),
    resolveApproval: (answer) => approvals.resolve(answer),
    async callModel(fn, signal) {
      const result = await callModelWithRecovery(
        { clock, classify, budget, backoff, random, maxAttempts },
        fn,
        signal,
      );
      if (!result.ok) {
        const { classification, decision } = result;
        state.failures.push({
          tool: 'model',
          failure_class: classification.failureClass,
          code: classification.code,
          recovery: decision.action,
        });
        const reason =
          classification.code === 'QUOTA_EXCEEDED' ? 'MODEL_QUOTA_EXCEEDED' : 'MODEL_UNAVAILABLE';
        run.stop('FAILED', reason, 'model');
      }
      return result;
    },
    isStopped: () => state.terminal !== undefined,
    takeGuidance() {
      const guidance = state.guidance;
      state.guidance = undefined;
      return guidance;
    },
    unusableTools(toolNames) {
      if (access.knownDenials().length === 0 && !state.terminal) return [];
      if (state.terminal || run.onDenial === 'stop') return [...toolNames];
      return toolNames.filter((name) => !run.policyFor(name).resource);
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
