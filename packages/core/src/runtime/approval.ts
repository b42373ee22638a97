import type { Ledger } from '../ledger/ledger.js';
import type { BlockCheck } from './approval-check.js';
import type { AccessGrant, GrantBook } from './approval-grants.js';
import type { RunState } from './run-state.js';

/** A call that is blocked, but that an operator may open (human escalation). */
export interface ApprovalRequest {
  toolName: string;
  toolCallId: string;
  /** The call's resources an approval would grant (each with what lies below it). */
  resources: string[];
  /** The closed resource that blocked it and why (`DENIED_EARLIER`, `SCOPE_DENY`, ...). */
  blockedBy: { resource: string; reason: string };
  /** Text for the approver: which resources, and why they are closed. */
  message: string;
}

export interface ApprovalCall {
  toolName: string;
  toolCallId: string;
  input: unknown;
}

export interface ApprovalAnswer extends ApprovalCall {
  approved: boolean;
  /** Who answered (operator id, approval id): recorded with the grant. */
  decidedBy: string;
  reason?: string | undefined;
}

export interface ApprovalGateOptions {
  runId: string;
  ledger: Ledger;
  grants: GrantBook;
  state: RunState;
  now: () => number;
  check: (toolName: string, input: unknown) => Promise<BlockCheck>;
  /** Reports a refusal (event), e.g. `call.blocked` with `APPROVAL_REQUESTED`. */
  onBlocked: (call: ApprovalCall, resource: string, reason: string) => void;
}

export interface ApprovalGate {
  request(call: ApprovalCall): Promise<ApprovalRequest | undefined>;
  resolve(answer: ApprovalAnswer): Promise<{ granted: string[] }>;
}

/** Ledger counter that proves a resource was escalated for a call, on every worker. */
function escalationCounter(toolCallId: string, resource: string): string {
  return `approval:${toolCallId}:${resource}`;
}

/**
 * Turns blocks into approval requests and answers into grants. Only what was escalated for
 * that very call can be granted through an answer: an approval the model could not have
 * caused (an unrelated approval of the same tool) opens nothing.
 */
export function createApprovalGate(options: ApprovalGateOptions): ApprovalGate {
  const { runId, ledger, grants, state } = options;
  const escalated = new Map<string, string[]>();
  const answered = new Set<string>();

  const wasEscalated = async (toolCallId: string, resource: string) =>
    escalated.get(toolCallId)?.includes(resource) ||
    (await ledger.getCounter(runId, escalationCounter(toolCallId, resource)).catch(() => 0)) > 0;

  const relabel = (call: ApprovalCall, from: string, to: string | undefined) => {
    for (let i = state.blocked.length - 1; i >= 0; i--) {
      const entry = state.blocked[i]!;
      if (entry.tool !== call.toolName || entry.reason !== from) continue;
      if (!(escalated.get(call.toolCallId) ?? []).includes(entry.resource)) continue;
      if (to === undefined) state.blocked.splice(i, 1);
      else state.blocked[i] = { ...entry, reason: to };
    }
  };

  return {
    async request(call) {
      const check = await options.check(call.toolName, call.input);
      if (!check.blocked || !check.grantable) return undefined;
      if (!escalated.has(call.toolCallId)) {
        escalated.set(call.toolCallId, check.resources);
        for (const resource of check.resources) {
          await ledger.incrementCounter(runId, escalationCounter(call.toolCallId, resource));
          state.blocked.push({ tool: call.toolName, resource, reason: 'APPROVAL_REQUESTED' });
          options.onBlocked(call, resource, 'APPROVAL_REQUESTED');
        }
      }
      return {
        toolName: call.toolName,
        toolCallId: call.toolCallId,
        resources: [...check.resources],
        blockedBy: { resource: check.resource, reason: check.reason },
        message: `${call.toolName} needs operator approval to reach ${check.resources.join(', ')}: ${describe(check)}. Approving grants this run access to ${check.resources.length > 1 ? 'these resources' : 'this resource'} and everything below it.`,
      };
    },
    async resolve(answer) {
      if (answered.has(answer.toolCallId)) return { granted: [] };
      const check = await options.check(answer.toolName, answer.input);
      const closed = check.blocked && check.grantable ? check.resources : [];
      const mine: string[] = [];
      for (const resource of closed)
        if (await wasEscalated(answer.toolCallId, resource)) mine.push(resource);
      if (!escalated.has(answer.toolCallId) && mine.length > 0)
        escalated.set(answer.toolCallId, mine); // escalated on another worker
      answered.add(answer.toolCallId);
      if (!answer.approved) {
        const names = (escalated.get(answer.toolCallId) ?? mine).join(', ');
        if (names === '') return { granted: [] }; // not ours: an approval the app asked for itself
        relabel(answer, 'APPROVAL_REQUESTED', 'APPROVAL_DECLINED');
        state.guidance = `The operator declined access to ${names}. This route is closed, and so is every other route to the same resource: do not try another tool, command, endpoint or credential for it. Continue with what remains, or report that it cannot be done.`;
        return { granted: [] };
      }
      for (const resource of mine) {
        const grant: AccessGrant = { resource, grantedBy: answer.decidedBy, at: options.now() };
        await grants.add(answer.reason ? { ...grant, reason: answer.reason } : grant);
      }
      relabel(answer, 'APPROVAL_REQUESTED', undefined);
      return { granted: mine };
    },
  };
}

function describe(check: Extract<BlockCheck, { blocked: true }>): string {
  switch (check.reason) {
    case 'DENIED_EARLIER':
      return `access to ${check.resource} was denied earlier in this run`;
    case 'SCOPE_DENY':
      return `${check.resource} is outside the run's scope (deny rule)`;
    case 'SCOPE_NOT_ALLOWED':
      return `${check.resource} is not in the run's allow list`;
    default:
      return `${check.resource} is closed (${check.reason})`;
  }
}
