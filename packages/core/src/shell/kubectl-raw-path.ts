import { everything } from '../scope/canonical-resource.js';
import { type KubernetesTarget, kubernetesResource } from '../scope/infra-resource.js';
import { type Arg, isUnknownResource } from './shell-word.js';

/**
 * What `kubectl … --raw <path>` reaches: `/api/v1/namespaces/{ns}/…` and
 * `/apis/{group}/{version}/namespaces/{ns}/…` reach that namespace; any other API path
 * (nodes, cluster-scoped kinds, discovery, `/apis/{group}/{version}/{kind}` across all
 * namespaces) reaches the whole cluster. A dot segment could land anywhere: whole cluster.
 */
export function kubectlRawResource(path: Arg, base: KubernetesTarget): string {
  if (path === null || isUnknownResource(path)) return everything;
  const cluster = kubernetesResource({ context: base.context, allNamespaces: true });
  const pathname = path.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '').split(/[?#]/)[0] ?? '';
  const segments = pathname
    .split('/')
    .filter((segment) => segment !== '')
    .map(decodeSegment);
  if (segments.some((s) => s === '.' || s === '..' || s.includes('/'))) return cluster;
  const namespaced =
    segments[0] === 'api' ? segments.slice(2) : segments[0] === 'apis' ? segments.slice(3) : [];
  const [keyword, namespace] = namespaced;
  if (keyword !== 'namespaces' || namespace === undefined || namespace.trim() === '') {
    return cluster;
  }
  return kubernetesResource({ context: base.context, namespace });
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
