import type { AccessGrant } from '../../ledger/ledger.js';
import type { RunMemory } from '../run/run-memory.js';
import type { RunAction } from '../run/run-state.js';
import type { BlockCheck } from './block-check.js';

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

export interface ApprovalParts {
  memory: RunMemory;
  dispatch: (action: RunAction) => void;
  now: () => number;
  check: (toolName: string, input: unknown) => Promise<BlockCheck>;
  /** Reports a refusal (event), e.g. `call.blocked` with `APPROVAL_REQUESTED`. */
  onBlocked: (call: ApprovalCall, resource: string, reason: string) => void;
  /** Records an operator grant (fact + event). */
  grant: (grant: AccessGrant) => Promise<void>;
}

export interface ApprovalGate {
  request(call: ApprovalCall): Promise<ApprovalRequest | undefined>;
  resolve(answer: ApprovalAnswer): Promise<{ granted: string[] }>;
}

/**
 * Turns blocks into approval requests and answers into grants. Only what was escalated
 * for that very call (on any worker: escalations are run facts) can be granted through an
 * answer: an approval the model could not have caused opens nothing.
 */
export function createApprovalGate(parts: ApprovalParts): ApprovalGate {
  const { memory } = parts;
  const answered = new Set<string>();

  const escalatedFor = async (toolCallId: string) =>
    (await memory.current()).escalations.get(toolCallId)?.resources ?? [];

  return {
    async request(call) {
      const check = await parts.check(call.toolName, call.input);
      if (!check.blocked || !check.grantable) return undefined;
      if ((await escalatedFor(call.toolCallId)).length === 0) {
        await memory.add('escalation', call.toolCallId, {
          toolCallId: call.toolCallId,
          tool: call.toolName,
          resources: [...check.resources],
          at: parts.now(),
        });
        parts.dispatch({
          type: 'escalated',
          entries: check.resources.map((resource) => ({
            tool: call.toolName,
            resource,
            reason: 'APPROVAL_REQUESTED',
          })),
        });
        for (const resource of check.resources)
          parts.onBlocked(call, resource, 'APPROVAL_REQUESTED');
      }
      const many = check.resources.length > 1;
      return {
        toolName: call.toolName,
        toolCallId: call.toolCallId,
        resources: [...check.resources],
        blockedBy: { resource: check.resource, reason: check.reason },
        message: `${call.toolName} needs operator approval to reach ${check.resources.join(', ')}: ${describe(check)}. Approving grants this run access to ${many ? 'these resources' : 'this resource'} and everything below it.`,
      };
    },
    async resolve(answer) {
      if (answered.has(answer.toolCallId)) return { granted: [] };
      answered.add(answer.toolCallId);
      const escalated = await escalatedFor(answer.toolCallId);
      if (escalated.length === 0) return { granted: [] }; // not ours: the app asked for itself
      const check = await parts.check(answer.toolName, answer.input);
      const closed = check.blocked && check.grantable ? check.resources : [];
      const mine = closed.filter((resource) => escalated.includes(resource));
      if (!answer.approved) {
        parts.dispatch({
          type: 'escalation.answered',
          tool: answer.toolName,
          resources: escalated,
          declined: true,
          guidance: `The operator declined access to ${escalated.join(', ')}. This route is closed, and so is every other route to the same resource: do not try another tool, command, endpoint or credential for it. Continue with what remains, or report that it cannot be done.`,
        });
        return { granted: [] };
      }
      for (const resource of mine) {
        await parts.grant({
          resource,
          grantedBy: answer.decidedBy,
          at: parts.now(),
          ...(answer.reason ? { reason: answer.reason } : {}),
        });
      }
      parts.dispatch({
        type: 'escalation.answered',
        tool: answer.toolName,
        resources: escalated,
        declined: false,
      });
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
