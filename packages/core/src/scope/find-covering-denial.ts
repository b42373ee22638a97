import { resourcesOverlap } from './resource-match.js';

/**
 * The first denial that any of `resources` may reach, or undefined. A resource reaches a
 * denial when the denial covers it, and also when it is wider than the denial (a call that
 * may touch all of `https://github.com` may touch the denied `acme/secret`): fail closed.
 */
export function findCoveringDenial<Denial extends { resource: string }>(
  resources: readonly string[],
  denials: readonly Denial[],
): Denial | undefined {
  for (const denial of denials) {
    if (resources.some((resource) => resourcesOverlap(denial.resource, resource))) return denial;
  }
  return undefined;
}
