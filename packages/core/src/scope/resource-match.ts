import { everything } from './canonical-resource.js';

/**
 * A denial of `denied` covers `candidate` when they are equal or the candidate lies below it
 * on a path boundary: `https://github.com/acme/secret` covers `.../secret/issues/1` but not
 * `.../secret-2`. `*` on either side covers. Both sides must be canonical resources.
 */
export function resourceCovers(denied: string, candidate: string): boolean {
  if (denied === everything || candidate === everything) return true;
  candidate = alignPorts(denied, candidate);
  if (denied === candidate) return true;
  if (!candidate.startsWith(denied)) return false;
  return denied.endsWith('/') || candidate.charAt(denied.length) === '/';
}

const postgresServer = /^(postgres:\/\/[^/:[\]]+)(:\d+)?(\/.*)?$/;

/**
 * A PostgreSQL resource without a port (`postgres://db/billing`: the port was left to an
 * environment the library cannot see) stands for that host and database on any port: it
 * covers the same host and database on each port, and no one port covers it.
 */
function alignPorts(denied: string, candidate: string): string {
  const wide = postgresServer.exec(denied);
  const narrow = postgresServer.exec(candidate);
  if (wide === null || narrow === null || wide[2] !== undefined || narrow[2] === undefined)
    return candidate;
  return `${narrow[1]}${narrow[3] ?? ''}`;
}

/**
 * Whether a call that reaches `candidate` (and everything below it) may reach something
 * below `denied`: either covers the other. `https://github.com` (all of GitHub, e.g.
 * `gh api graphql`) overlaps a denied `https://github.com/acme/secret`.
 */
export function resourcesOverlap(denied: string, candidate: string): boolean {
  if (resourceCovers(denied, candidate) || resourceCovers(candidate, denied)) return true;
  // Any port meets every port: compare at the other side's port.
  const a = atPortOf(denied, candidate);
  const b = atPortOf(candidate, denied);
  if (a === denied && b === candidate) return false;
  return resourceCovers(a, b) || resourceCovers(b, a);
}

/**
 * A PostgreSQL resource of unknown port read at the port `other` names (`postgres://db/x`
 * at `postgres://db:6432` is `postgres://db:6432/x`); any other resource as it is.
 */
export function atPortOf(resource: string, other: string): string {
  const self = postgresServer.exec(resource);
  const port = postgresServer.exec(other);
  if (self === null || port === null || self[2] !== undefined || port[2] === undefined)
    return resource;
  if (self[1] !== port[1]) return resource;
  return `${self[1]}${port[2]}${self[3] ?? ''}`;
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
