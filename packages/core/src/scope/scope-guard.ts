import picomatch from 'picomatch';
import { InvalidOptionsError } from '../errors.js';
import { everything } from './canonical-resource.js';
import { canonicaliseResource } from './canonicalise-resource.js';
import { atPortOf, resourceAncestors, resourceCovers } from './resource-match.js';

export type ScopeVerdict =
  | { allowed: true }
  | { allowed: false; resource: string; rule: string; reason: 'SCOPE_DENY' | 'SCOPE_NOT_ALLOWED' };

export interface ScopeGuardOptions {
  /** Glob patterns over canonical resources; when given, everything else is blocked. */
  allow?: readonly string[] | undefined;
  /** Glob patterns over canonical resources; deny wins over allow. */
  deny?: readonly string[] | undefined;
}

export interface ScopeGuard {
  /** False when there are no rules: every call is allowed without looking. */
  readonly hasRules: boolean;
  /** Rules on the resources a call reaches and, optionally, the capability it needs. */
  check(resources: readonly string[], capability?: string | undefined): ScopeVerdict;
}

interface Rule {
  text: string;
  /** Rules written `capability:<glob>` match the capability, not resources. */
  capability: boolean;
  /** Matches the resource itself. */
  matches(resource: string): boolean;
  /** The canonical static part of the pattern, for calls wider than the rule. */
  base: string | undefined;
}

const capabilityPrefix = 'capability:';
const options = { dot: true };

function compile(text: unknown, field: string): Rule {
  if (typeof text !== 'string' || text.trim() === '') {
    throw new InvalidOptionsError(field, 'must be a non-empty glob pattern');
  }
  const pattern = text.trim();
  if (pattern.startsWith(capabilityPrefix)) {
    const glob = pattern.slice(capabilityPrefix.length);
    return { text, capability: true, base: undefined, matches: matcher(glob, field) };
  }
  const scan = picomatch.scan(pattern);
  if (!scan.isGlob) {
    const resource = canonicaliseResource(pattern);
    return { text, capability: false, base: resource, matches: (r) => resourceCovers(resource, r) };
  }
  // Canonicalise the static part where it names a URL or path, so `https://github.com/ACME/**`
  // matches `https://github.com/acme/…`.
  const canonicalBase = /^([a-z][a-z0-9+.-]*:\/\/[^/]+|\/|~)/i.test(scan.base)
    ? canonicaliseResource(scan.base)
    : undefined;
  const glob =
    canonicalBase === undefined ? pattern : `${canonicalBase.replace(/\/$/, '')}/${scan.glob}`;
  const match = matcher(glob, field);
  return {
    text,
    capability: false,
    base: canonicalBase,
    // A rule over a resource also covers everything below it.
    matches: (resource) => resourceAncestors(resource).some((candidate) => match(candidate)),
  };
}

function matcher(glob: string, field: string): (value: string) => boolean {
  try {
    return picomatch(glob, options);
  } catch (error) {
    throw new InvalidOptionsError(field, `is not a valid glob pattern (${String(error)})`);
  }
}

/**
 * A call reaching `resource` may reach what the deny rule names. A resource of unknown
 * port is read at the rule's port (it may be that one); an allow rule never does that.
 */
function denies(rule: Rule, resource: string): boolean {
  const read = rule.base === undefined ? resource : atPortOf(resource, rule.base);
  if (rule.matches(read)) return true;
  return rule.base !== undefined && rule.base !== everything && resourceCovers(read, rule.base);
}

/**
 * What the verdict names: the resource itself when the rule covers it; when the call is
 * wider than the rule (all of GitHub against one denied repository), the rule's resource,
 * so that the block names what is closed rather than everything the call might reach.
 */
function deniedPart(rule: Rule, resource: string): string {
  if (rule.matches(resource) && resource !== everything) return resource;
  return rule.base ?? resource;
}

/**
 * Static allow/deny rules (picomatch globs) over canonical resources and capabilities.
 * Deny wins; with an allow list, anything not allowed is blocked; the unknown reach `*` is
 * blocked whenever any rule exists. Invalid patterns throw `InvalidOptionsError`.
 */
export function createScopeGuard(guardOptions: ScopeGuardOptions = {}): ScopeGuard {
  const allow = (guardOptions.allow ?? []).map((text, index) =>
    compile(text, `scope.allow[${index}]`),
  );
  const deny = (guardOptions.deny ?? []).map((text, index) =>
    compile(text, `scope.deny[${index}]`),
  );
  const denyResources = deny.filter((rule) => !rule.capability);
  const allowResources = allow.filter((rule) => !rule.capability);
  const allowCapabilities = allow.filter((rule) => rule.capability);

  return {
    hasRules: allow.length + deny.length > 0,
    check(resources, capability) {
      if (capability !== undefined) {
        const denied = deny.find((rule) => rule.capability && rule.matches(capability));
        if (denied) return blocked(`${capabilityPrefix}${capability}`, denied.text, 'SCOPE_DENY');
        if (
          allowCapabilities.length > 0 &&
          !allowCapabilities.some((rule) => rule.matches(capability))
        ) {
          return blocked(`${capabilityPrefix}${capability}`, '(allow list)', 'SCOPE_NOT_ALLOWED');
        }
      }
      for (const resource of resources) {
        const denied = denyResources.find(
          (rule) => resource === everything || denies(rule, resource),
        );
        if (denied) return blocked(deniedPart(denied, resource), denied.text, 'SCOPE_DENY');
      }
      if (allowResources.length === 0) return { allowed: true };
      for (const resource of resources) {
        const permitted =
          resource !== everything && allowResources.some((rule) => rule.matches(resource));
        if (!permitted) return blocked(resource, '(allow list)', 'SCOPE_NOT_ALLOWED');
      }
      return { allowed: true };
    },
  };
}

function blocked(
  resource: string,
  rule: string,
  reason: 'SCOPE_DENY' | 'SCOPE_NOT_ALLOWED',
): ScopeVerdict {
  return { allowed: false, resource, rule, reason };
}
