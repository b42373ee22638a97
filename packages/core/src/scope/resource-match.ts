import { everything } from './canonical-resource.js';

/**
 * A denial of `denied` covers `candidate` when they are equal or the candidate lies below it
 * on a path boundary: `https://github.com/acme/secret` covers `.../secret/issues/1` but not
 * `.../secret-2`. `*` on either side covers. Both sides must be canonical resources.
 */
export function resourceCovers(denied: string, candidate: string): boolean {
  if (denied === everything || candidate === everything) return true;
  [denied, candidate] = alignPorts(denied, candidate);
  if (denied === candidate) return true;
  if (!candidate.startsWith(denied)) return false;
  return denied.endsWith('/') || candidate.charAt(denied.length) === '/';
}

const postgresServer = /^(postgres:\/\/[^/:[\]]+)(:\d+)?(\/.*)?$/;

/**
 * A PostgreSQL resource without a port (`postgres://db/billing`: the port was left to an
 * environment the library cannot see) stands for that host and database on any port, so
 * against one with a port both are compared without it.
 */
function alignPorts(a: string, b: string): [string, string] {
  const x = postgresServer.exec(a);
  const y = postgresServer.exec(b);
  if (x === null || y === null || (x[2] === undefined) === (y[2] === undefined)) return [a, b];
  return [`${x[1]}${x[3] ?? ''}`, `${y[1]}${y[3] ?? ''}`];
}

/**
 * Whether a call that reaches `candidate` (and everything below it) may reach something
 * below `denied`: either covers the other. `https://github.com` (all of GitHub, e.g.
 * `gh api graphql`) overlaps a denied `https://github.com/acme/secret`.
 */
export function resourcesOverlap(denied: string, candidate: string): boolean {
  return resourceCovers(denied, candidate) || resourceCovers(candidate, denied);
}

/** The resource and every resource above it, nearest first: `https://h/a/b` → itself,
 * `https://h/a`, `https://h`; `payment:p-1` → itself. */
export function resourceAncestors(resource: string): string[] {
  const list = [resource];
  const root = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.exec(resource)?.[0].length ?? 0;
  let current = resource;
  for (let slash = current.lastIndexOf('/'); slash > root; slash = current.lastIndexOf('/')) {
    current = current.slice(0, slash);
    list.push(current);
  }
  return list;
}
