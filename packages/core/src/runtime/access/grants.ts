import { InvalidOptionsError } from '../../errors.js';
import type { AccessGrant } from '../../ledger/ledger.js';
import { everything } from '../../scope/canonical-resource.js';
import type { RunParts } from '../run-parts.js';

/** Records a grant as a fact every worker of the run sees, and says so. */
export async function recordGrant(run: RunParts, entry: AccessGrant): Promise<void> {
  await run.memory.add('grant', entry.resource, entry);
  if (!run.emitter.active) return;
  run.emitter.emit({
    type: 'access.granted',
    runId: run.runId,
    resource: entry.resource,
    grantedBy: entry.grantedBy,
    at: entry.at,
  });
}

/** An operator's grant, checked: one named resource (never `*`) and who granted it. */
export function checkedGrant(entry: Omit<AccessGrant, 'at'>, at: number): AccessGrant {
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
  return { ...entry, resource, at };
}
