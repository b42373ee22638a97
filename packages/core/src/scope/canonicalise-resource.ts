import { everything, opaqueResource } from './canonical-resource.js';
import { type PathResourceOptions, pathResource } from './path-resource.js';
import { urlResource } from './url-resource.js';

/**
 * Any resource string in canonical form: URLs (and scp-like addresses) through
 * `urlResource`, absolute or `~` paths through `pathResource`, anything else as an opaque
 * `scheme:rest` resource. Idempotent.
 */
export function canonicaliseResource(resource: string, options: PathResourceOptions = {}): string {
  const input = resource.trim();
  if (input === '' || input === everything) return everything;
  if (input.startsWith('/') || input.startsWith('~') || /^file:/i.test(input)) {
    return pathResource(input, options);
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(input) || /^[^@/\s:]+@[^@/\s:]+:/.test(input)) {
    return urlResource(input);
  }
  return opaqueResource(input);
}
