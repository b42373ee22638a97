/**
 * The canonical resource scheme. Every extractor returns strings in one of these forms, so
 * the same thing reached by different routes compares equal and a denial covers everything
 * below it (see `resourceCovers`):
 *
 * - web and code hosts: `https://host[:port]/path` — scheme http/https/ws/wss folded to
 *   https, host lower-cased without a trailing dot, default port, user info, query and
 *   fragment dropped, duplicate slashes collapsed, dot segments resolved, unreserved
 *   percent-escapes decoded and the rest upper-cased, trailing slash and `.git` dropped.
 *   Code hosts (GitHub, GitLab, Bitbucket, their API, raw, codeload and SSH forms) map to
 *   `https://github.com/{owner}/{repo}/…` with owner and repo lower-cased.
 * - local files: `file:///absolute/normalised/path` (no percent-encoding, no symlinks).
 * - ssh, scp and rsync hosts: `ssh://host` (user and port dropped; the remote command or
 *   path is opaque and covered by the host).
 * - S3: `s3://bucket/key`; Kubernetes: `k8s://{context}/namespaces/{ns}/{kind}/{name}`;
 *   PostgreSQL: `postgres://host:port/db`; other AWS services:
 *   `aws://{service}/{region}/{name}` (`aws://{service}` when the region is unknown).
 * - opaque user resources (`payment:p-42`): trimmed, scheme lower-cased.
 * - `*`: everything (an unknown reach; fails closed).
 */
export const everything = '*';

/** Lower-cases the scheme of an opaque `scheme:rest` resource and trims it. */
export function opaqueResource(resource: string): string {
  const trimmed = resource.trim();
  if (trimmed === '') return everything;
  const colon = trimmed.indexOf(':');
  if (colon <= 0) return trimmed;
  return `${trimmed.slice(0, colon).toLowerCase()}:${trimmed.slice(colon + 1).trim()}`;
}

const unreserved = /^[A-Za-z0-9\-._~]$/;

/** Decodes percent-escapes of unreserved characters, upper-cases the hex of the rest. */
export function normalisePercentEncoding(segment: string): string {
  return segment.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return unreserved.test(char) ? char : `%${hex.toUpperCase()}`;
  });
}

/** Fully decodes a segment for comparing names; malformed escapes stay as they are. */
export function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Splits a URL path into non-empty, percent-normalised segments. */
export function splitPath(pathname: string): string[] {
  return pathname
    .split('/')
    .filter((segment) => segment !== '')
    .map(normalisePercentEncoding);
}

export function stripGitSuffix(segment: string): string {
  return segment.toLowerCase().endsWith('.git') ? segment.slice(0, -4) : segment;
}

export function joinResource(base: string, segments: readonly string[]): string {
  return segments.length === 0 ? base : `${base}/${segments.join('/')}`;
}

/** Lower-cases a percent-normalised segment without touching its escapes' hex digits. */
export function lowerSegment(segment: string): string {
  return segment.replace(/%[0-9A-Fa-f]{2}|[^%]+|%/g, (part) =>
    part.length === 3 && part.startsWith('%') ? part.toUpperCase() : part.toLowerCase(),
  );
}
