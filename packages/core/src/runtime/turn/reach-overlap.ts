import { resourcesOverlap } from '../../scope/resource-match.js';

/**
 * Whether two calls may reach the same thing. Undefined (a tool without a `resource`
 * function) reaches everything; an empty list (`echo hi`) reaches nothing.
 */
export function reachesOverlap(
  a: readonly string[] | undefined,
  b: readonly string[] | undefined,
): boolean {
  if (a === undefined) return b === undefined || b.length > 0;
  if (b === undefined) return a.length > 0;
  return a.some((left) => b.some((right) => resourcesOverlap(left, right)));
}
