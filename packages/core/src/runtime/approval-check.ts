import type { Denial } from '../ledger/ledger.js';
import { everything } from '../scope/canonical-resource.js';
import { findCoveringDenial, type ScopeGuard } from '../scope/index.js';
import type { GrantBook } from './approval-grants.js';

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

export interface FindBlockInput {
  /** Undefined: the tool has no `resource` function and touches everything. */
  resources: readonly string[] | undefined;
  capability: string | undefined;
  guard: ScopeGuard;
  denials: readonly Denial[];
  grants: GrantBook;
  /** Static rules are skipped once the run stopped; the denial still names the resource. */
  checkScope: boolean;
}

/**
 * The resource that closes a call, honouring operator grants: a granted resource (and what
 * lies below it) is lifted from both the static scope rules and earlier denials. A wider
 * reach than the grant, or a tool without a resource function, is never lifted.
 */
export async function findBlock(
  input: FindBlockInput,
): Promise<{ resource: string; reason: string } | undefined> {
  const { resources, guard, denials, grants } = input;
  const first = blockOf(input, resources, input.capability);
  // Only a call that would be blocked pays for reading grants from the ledger.
  if (!first || !resources) return first;
  const open = await grants.ungranted(resources);
  const capability =
    input.capability !== undefined &&
    (await grants.ungranted([`capability:${input.capability}`])).length > 0
      ? input.capability
      : undefined;
  return blockOf({ guard, denials, checkScope: input.checkScope }, open, capability);
}

function blockOf(
  input: Pick<FindBlockInput, 'guard' | 'denials' | 'checkScope'>,
  resources: readonly string[] | undefined,
  capability: string | undefined,
): { resource: string; reason: string } | undefined {
  if (resources && input.checkScope) {
    const verdict = input.guard.check(resources, capability);
    if (!verdict.allowed) return { resource: verdict.resource, reason: verdict.reason };
  }
  // Name the denied resource the call reaches (a tool without `resource` reaches all).
  const covering = resources ? findCoveringDenial(resources, input.denials) : input.denials[0];
  return covering ? { resource: covering.resource, reason: 'DENIED_EARLIER' } : undefined;
}

/**
 * The full check `execute` makes before running, as data. When blocked, each of the call's
 * resources is checked alone, so an approval names (and a grant opens) exactly the closed
 * ones, not the open ones beside them.
 */
export async function checkCall(input: FindBlockInput & { stopped: boolean }): Promise<BlockCheck> {
  const found = await findBlock(input);
  if (!found) return { blocked: false };
  const closed: string[] = [];
  if (input.resources) {
    const alone = { ...input, capability: undefined };
    if (input.capability !== undefined && (await findBlock({ ...input, resources: [] })))
      closed.push(`capability:${input.capability}`);
    for (const resource of input.resources)
      if (await findBlock({ ...alone, resources: [resource] })) closed.push(resource);
  }
  const grantable =
    !input.stopped &&
    input.resources !== undefined &&
    closed.length > 0 &&
    !closed.includes(everything);
  return { blocked: true, ...found, grantable, resources: closed };
}
