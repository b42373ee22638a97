import type { Denial } from '../ledger/ledger.js';
import { everything, type ScopeGuard } from '../scope/index.js';
import type { Classification, Decision } from '../types.js';
import { type BlockCheck, checkCall, findBlock } from './approval-check.js';
import type { GrantBook } from './approval-grants.js';
import type { ToolPolicy } from './options.js';
import { buildContract } from './recovery-contract.js';
import type { CallIdentity, RunContext } from './run-context.js';
import type { ToolCallFailure } from './tool-call.js';

/**
 * Authorization is not a puzzle: what stands between a call and execution. Static scope
 * rules, the run's remembered denials (shared through the ledger), operator grants, and
 * a stopped run. A call that is refused never reaches its tool.
 */
export interface AccessControl {
  /** The call's canonical resources; undefined when the tool declares none (it touches everything). */
  resourcesOf(policy: ToolPolicy, input: unknown): string[] | undefined;
  /** The refusal for a call about to run, or undefined when it may run. */
  refuse(
    call: CallIdentity,
    policy: ToolPolicy,
    key: string,
    resources: string[] | undefined,
  ): Promise<ToolCallFailure | undefined>;
  /** The refusal every call gets once the run has stopped. */
  runStopped(call: CallIdentity, key: string): ToolCallFailure;
  /** Remembers the resources of a call that was denied (a 403), for every route and worker. */
  rememberDenial(
    tool: string,
    resources: readonly string[],
    reason: string,
    capability?: string | undefined,
  ): Promise<void>;
  /** The same checks as `refuse`, without refusing, recording or telling anyone. */
  check(toolName: string, input: unknown): Promise<BlockCheck>;
  /** The denials known to this process (the ledger's, as last read). */
  knownDenials(): readonly Denial[];
}

export function createAccessControl(
  run: RunContext,
  parts: { guard: ScopeGuard; grants: GrantBook },
): AccessControl {
  const { runId, ledger, clock, state } = run;
  const { guard, grants } = parts;
  let denials: Denial[] = [];

  const refreshDenials = async () => {
    try {
      denials = await ledger.listDenials(runId);
    } catch {
      // Keep the denials known locally: a store outage must not reopen a closed route.
    }
    return denials;
  };

  const refusal = (
    call: CallIdentity,
    key: string,
    resource: string,
    code: string,
    decision: Decision,
    classification: Classification,
    status: 'BLOCKED' | 'FAILED',
  ): ToolCallFailure => {
    run.emit({
      type: 'call.blocked',
      input: call.input,
      runId,
      tool: call.toolName,
      toolCallId: call.toolCallId,
      idempotencyKey: key,
      resource,
      reason: code,
      at: clock.now(),
    });
    const contract = buildContract({
      tool: call.toolName,
      decision,
      classification,
      resource: resource.startsWith('(') ? undefined : resource,
      nextPossibleAction: run.nextPossibleAction,
      status,
    });
    return { ok: false, contract, decision, classification };
  };

  const block = (
    call: CallIdentity,
    key: string,
    resource: string,
    code: string,
  ): ToolCallFailure => {
    const classification: Classification = {
      failureClass: 'AUTHORIZATION',
      code,
      message: `${call.toolName} may not reach ${resource}`,
    };
    const decision: Decision = {
      action: 'ABORT',
      code,
      reason: 'blocked before execution',
      terminal: true,
    };
    state.blocked.push({ tool: call.toolName, resource, reason: code });
    const failure = refusal(call, key, resource, code, decision, classification, 'BLOCKED');
    state.guidance = failure.contract.guidance;
    if (run.onDenial === 'stop') run.stop('BLOCKED', 'AUTHORIZATION_DENIED', call.toolName);
    return failure;
  };

  const runStopped = (call: CallIdentity, key: string): ToolCallFailure => {
    const terminal = state.terminal!;
    const blocked = terminal.status === 'BLOCKED';
    const classification: Classification = {
      failureClass: blocked ? 'AUTHORIZATION' : 'PERMANENT',
      code: 'RUN_STOPPED',
      message: 'the run has stopped',
    };
    const decision: Decision = {
      action: 'ABORT',
      code: 'RUN_STOPPED',
      reason: `the run stopped earlier (${terminal.reason})`,
      terminal: true,
    };
    return refusal(
      call,
      key,
      '(run stopped)',
      'RUN_STOPPED',
      decision,
      classification,
      blocked ? 'BLOCKED' : 'FAILED',
    );
  };

  const resourcesOf = (policy: ToolPolicy, input: unknown): string[] | undefined => {
    if (!policy.resource) return undefined;
    try {
      const value = policy.resource(input);
      // [] touches nothing (`echo hi`); no resource function touches everything.
      return (typeof value === 'string' ? [value] : [...value])
        .map((r) => r.trim())
        .filter(Boolean);
    } catch {
      return [everything]; // cannot tell what it touches: fail closed
    }
  };

  return {
    resourcesOf,
    runStopped,
    knownDenials: () => denials,
    async refuse(call, policy, key, resources) {
      if (state.terminal?.status === 'FAILED') return runStopped(call, key);
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
      if (found) return block(call, key, found.resource, found.reason);
      if (!state.terminal && run.onDenial === 'stop' && known.length > 0) {
        run.stop('BLOCKED', 'AUTHORIZATION_DENIED', known[0]!.tool); // denied on another worker
      }
      return state.terminal ? runStopped(call, key) : undefined;
    },
    async rememberDenial(tool, resources, reason, capability) {
      for (const resource of resources) {
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
        run.emit({ type: 'denial.recorded', runId, denial, at: clock.now() });
      }
    },
    async check(toolName, input) {
      const stopped = {
        blocked: true as const,
        resource: '(run stopped)',
        reason: 'RUN_STOPPED',
        grantable: false,
        resources: [],
      };
      if (state.terminal?.status === 'FAILED') return stopped;
      const policy = run.policyFor(toolName);
      const result = await checkCall({
        resources: resourcesOf(policy, input),
        capability: policy.capability,
        guard,
        denials: await refreshDenials(),
        grants,
        checkScope: !state.terminal,
        stopped: state.terminal !== undefined,
      });
      return result.blocked || !state.terminal ? result : stopped;
    },
  };
}
