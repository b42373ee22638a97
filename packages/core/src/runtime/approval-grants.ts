import type { Ledger } from '../ledger/ledger.js';
import { everything } from '../scope/canonical-resource.js';
import { resourceAncestors, resourceCovers } from '../scope/resource-match.js';

/** An operator's decision to open one resource (and what lies below it) for the run. */
export interface AccessGrant {
  /** Canonical resource string; `*` (everything) can never be granted. */
  resource: string;
  /** Who decided: an operator id, an approval id. Required so the decision is attributable. */
  grantedBy: string;
  reason?: string | undefined;
  at: number;
}

export interface GrantBook {
  add(grant: AccessGrant): Promise<void>;
  /** `resources` minus those a grant covers, reading other workers' grants from the ledger. */
  ungranted(resources: readonly string[]): Promise<string[]>;
  list(): AccessGrant[];
}

/**
 * Ledger counter behind a grant. Counters are the one thing every store keeps per run and
 * can look up by name, so a grant survives restarts and reaches every worker without a new
 * Ledger method.
 */
export function grantCounterName(resource: string): string {
  return `grant:${resource}`;
}

export function createGrantBook(options: { runId: string; ledger: Ledger }): GrantBook {
  const { runId, ledger } = options;
  const grants: AccessGrant[] = [];
  const known = new Set<string>();
  // A grant must not cover a wider reach: `resourceCovers` treats `*` as covering all.
  const covered = (resource: string) =>
    resource !== everything && grants.some((g) => resourceCovers(g.resource, resource));

  const learn = async (resource: string): Promise<boolean> => {
    if (resource === everything) return false;
    for (const candidate of resourceAncestors(resource)) {
      if (known.has(candidate)) continue;
      // An unreadable store grants nothing: fail closed.
      const value = await ledger.getCounter(runId, grantCounterName(candidate)).catch(() => 0);
      if (value > 0) {
        known.add(candidate);
        grants.push({ resource: candidate, grantedBy: '(ledger)', at: 0 });
        return true;
      }
    }
    return false;
  };

  return {
    async add(grant) {
      if (!known.has(grant.resource)) {
        known.add(grant.resource);
        grants.push(grant);
      }
      // Remembered locally even when the store is down; other workers learn it later.
      await ledger.incrementCounter(runId, grantCounterName(grant.resource)).catch(() => 0);
    },
    async ungranted(resources) {
      const open: string[] = [];
      for (const resource of resources) {
        if (covered(resource) || (await learn(resource))) continue;
        open.push(resource);
      }
      return open;
    },
    list: () => grants.map((g) => ({ ...g })),
  };
}
