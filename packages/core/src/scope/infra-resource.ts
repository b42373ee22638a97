import { everything } from './canonical-resource.js';

/** `ssh://host`: user and port are dropped, the host is the resource. */
export function sshResource(host: string): string {
  const bare = host.replace(/^.*@/, '').replace(/^\[(.*)\]$/, '$1');
  const name = bare.toLowerCase().replace(/\.$/, '');
  return name === '' || /[\s/]/.test(name) ? everything : `ssh://${name}`;
}

/**
 * `s3://bucket/key`. Keys are kept verbatim (S3 keys are case-sensitive and `..` is a legal
 * key), except that a key with dot segments or empty segments, which some clients resolve,
 * is widened to its bucket.
 */
export function s3Resource(bucket: string, key?: string | undefined): string {
  const name = bucket.trim().toLowerCase();
  if (name === '' || name.includes('/')) return everything;
  const trimmed = (key ?? '').replace(/^\/+/, '').replace(/\/+$/, '');
  if (trimmed === '') return `s3://${name}`;
  const segments = trimmed.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) return `s3://${name}`;
  return `s3://${name}/${trimmed}`;
}

export interface PostgresTarget {
  host?: string | undefined;
  port?: string | number | undefined;
  database?: string | undefined;
}

/** `postgres://host:port/db`; a missing database widens to the server. */
export function postgresResource(target: PostgresTarget): string {
  let host = (target.host ?? '').trim().toLowerCase().replace(/\.$/, '');
  // A socket directory or an empty host is the local server.
  if (host === '' || host.startsWith('/') || host.startsWith('%2f')) host = 'localhost';
  if (/[\s,/]/.test(host)) return everything;
  const port = String(target.port ?? '5432').trim() || '5432';
  if (!/^\d+$/.test(port)) return everything;
  const server = `postgres://${host}:${port}`;
  const database = target.database?.trim();
  return database ? `${server}/${database}` : server;
}

const kindAliases: Record<string, string> = {
  po: 'pods',
  pod: 'pods',
  svc: 'services',
  service: 'services',
  deploy: 'deployments',
  deployment: 'deployments',
  cm: 'configmaps',
  configmap: 'configmaps',
  secret: 'secrets',
  ns: 'namespaces',
  namespace: 'namespaces',
  sa: 'serviceaccounts',
  serviceaccount: 'serviceaccounts',
  ing: 'ingresses',
  ingress: 'ingresses',
  sts: 'statefulsets',
  statefulset: 'statefulsets',
  ds: 'daemonsets',
  daemonset: 'daemonsets',
  rs: 'replicasets',
  replicaset: 'replicasets',
  no: 'nodes',
  node: 'nodes',
  pv: 'persistentvolumes',
  persistentvolume: 'persistentvolumes',
  pvc: 'persistentvolumeclaims',
  persistentvolumeclaim: 'persistentvolumeclaims',
  job: 'jobs',
  cj: 'cronjobs',
  cronjob: 'cronjobs',
  ep: 'endpoints',
  endpoint: 'endpoints',
  crd: 'customresourcedefinitions',
  customresourcedefinition: 'customresourcedefinitions',
  role: 'roles',
  rolebinding: 'rolebindings',
  clusterrole: 'clusterroles',
  clusterrolebinding: 'clusterrolebindings',
  sc: 'storageclasses',
  storageclass: 'storageclasses',
};

const clusterScoped = new Set([
  'nodes',
  'namespaces',
  'persistentvolumes',
  'customresourcedefinitions',
  'clusterroles',
  'clusterrolebindings',
  'storageclasses',
]);

/** Plural, lower-case, without an API group: `Secret`, `secret`, `secrets.v1.` → `secrets`. */
export function kubernetesKind(kind: string): string {
  const base = kind.trim().toLowerCase().split('.')[0] ?? '';
  return kindAliases[base] ?? (base.endsWith('s') ? base : `${base}s`);
}

export interface KubernetesTarget {
  context?: string | undefined;
  namespace?: string | undefined;
  /** All namespaces (`-A`): the whole cluster. */
  allNamespaces?: boolean | undefined;
  kind?: string | undefined;
  name?: string | undefined;
}

/** `k8s://{context}/namespaces/{ns}/{kind}/{name}`, widening as parts are missing. */
export function kubernetesResource(target: KubernetesTarget): string {
  const context = target.context?.trim() || 'default';
  const cluster = `k8s://${context}`;
  const kind = target.kind ? kubernetesKind(target.kind) : undefined;
  if (kind !== undefined && clusterScoped.has(kind)) {
    return target.name ? `${cluster}/${kind}/${target.name}` : `${cluster}/${kind}`;
  }
  if (target.allNamespaces) return cluster;
  const namespace = `${cluster}/namespaces/${target.namespace?.trim() || 'default'}`;
  if (kind === undefined) return namespace;
  return target.name ? `${namespace}/${kind}/${target.name}` : `${namespace}/${kind}`;
}
