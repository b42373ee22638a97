import type { AccessGrant, Denial } from '../../ledger/ledger.js';
import { everything } from '../../scope/canonical-resource.js';
import { findCoveringDenial } from '../../scope/find-covering-denial.js';
import { resourceCovers } from '../../scope/resource-match.js';
import type { ScopeGuard } from '../../scope/scope-guard.js';

/** What stands between a call and execution, without executing or recording anything. */
export type BlockCheck =
  | { blocked: false }
  | {
      blocked: true;
      /** The first closed resource the call reaches (`(run stopped)` after a stop). */
      resource: string;
      /** `SCOPE_DENY`, `SCOPE_NOT_ALLOWED`, `DENIED_EARLIER` or `RUN_STOPPED`. */
      reason: string;
      /**
       * Whether an operator grant can open it: false after the run stopped and for a tool
       * without a `resource` function (it touches everything, so no grant can be precise).
       */
      grantable: boolean;
      /** The call's own resources that are closed: what a grant would have to open. */
      resources: string[];
    };

export interface BlockInput {
  /** Undefined: the tool has no `resource` function and touches everything. */
  resources: readonly string[] | undefined;
  capability: string | undefined;
  guard: ScopeGuard;
  denials: readonly Denial[];
  grants: readonly AccessGrant[];
  /** Static rules are skipped once the run stopped; the denial still names the resource. */
  checkScope: boolean;
}

export type Block = { resource: string; reason: string };

/** True when an operator grant opens `resource` (never `*`, never a wider reach). */
function granted(grants: readonly AccessGrant[], resource: string): boolean {
  return (
    resource !== everything &&
    grants.some((g) => g.resource !== everything && resourceCovers(g.resource, resource))
  );
}

/**
 * The resource that closes a call, honouring operator grants: a granted resource (and what
 * lies below it) is lifted from both the static scope rules and earlier denials. A wider
 * reach than the grant, or a tool without a resource function, is never lifted.
 */
export function findBlock(input: BlockInput): Block | undefined {
  const first = blockOf(input, input.resources, input.capability);
  if (!first || !input.resources || input.grants.length === 0) return first;
  const open = input.resources.filter((resource) => !granted(input.grants, resource));
  const capability =
    input.capability !== undefined && !granted(input.grants, `capability:${input.capability}`)
      ? input.capability
      : undefined;
  return blockOf(input, open, capability);
}

function blockOf(
  input: BlockInput,
  resources: readonly string[] | undefined,
  capability: string | undefined,
): Block | undefined {
  if (resources && input.checkScope) {
    const verdict = input.guard.check(resources, capability);
    if (!verdict.allowed) return { resource: verdict.resource, reason: verdict.reason };
  }
  // Name the denied resource the call reaches (a tool without `resource` reaches all).
  const covering = resources ? findCoveringDenial(resources, input.denials) : input.denials[0];
  return covering ? { resource: covering.resource, reason: 'DENIED_EARLIER' } : undefined;
}

/**
 * The full check as data. When blocked, each of the call's resources is checked alone, so
 * an approval names (and a grant opens) exactly the closed ones, not the open ones beside.
 */
export function checkCall(input: BlockInput & { stopped: boolean }): BlockCheck {
  const found = findBlock(input);
  if (!found) return { blocked: false };
  const closed: string[] = [];
  if (input.resources) {
    const alone = { ...input, capability: undefined };
    if (input.capability !== undefined && findBlock({ ...input, resources: [] })) {
      closed.push(`capability:${input.capability}`);
    }
    for (const resource of input.resources) {
      if (findBlock({ ...alone, resources: [resource] })) closed.push(resource);
    }
  }
  const grantable =
    !input.stopped &&
    input.resources !== undefined &&
    closed.length > 0 &&
    !closed.includes(everything);
  return { blocked: true, ...found, grantable, resources: closed };
}
