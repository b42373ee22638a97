import { urlResource } from './url-resource.js';

/** What an HTTP method may do: `read` (safe methods), `delete`, or `write`. */
export type HttpCapability = 'read' | 'write' | 'delete';

export function httpCapability(method: string): HttpCapability {
  const upper = method.trim().toUpperCase();
  if (upper === 'GET' || upper === 'HEAD' || upper === 'OPTIONS') return 'read';
  return upper === 'DELETE' ? 'delete' : 'write';
}

/**
 * The resources an HTTP request reaches. The method does not change the resource (a GET
 * and a DELETE of the same URL touch the same thing); pass `httpCapability(method)` to
 * `ScopeGuard.check` to rule on what the request does.
 */
export function httpResource(_method: string, url: string): string[] {
  return [urlResource(url)];
}
