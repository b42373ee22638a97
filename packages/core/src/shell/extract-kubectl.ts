import { everything } from '../scope/canonical-resource.js';
import { type KubernetesTarget, kubernetesResource } from '../scope/infra-resource.js';
import type { CommandContext, Extractor } from './command-context.js';
import { isSet } from './environment.js';
import { kubectlRawResource } from './kubectl-raw-path.js';
import {
  hasOption,
  optionValue,
  optionValues,
  type ParsedOptions,
  parseOptions,
} from './parse-options.js';
import type { Arg } from './shell-word.js';

const valueLong = [
  'namespace',
  'context',
  'kubeconfig',
  'cluster',
  'user',
  'server',
  'token',
  'as',
  'as-group',
  'request-timeout',
  'certificate-authority',
  'client-certificate',
  'client-key',
  'tls-server-name',
  'cache-dir',
  'output',
  'selector',
  'filename',
  'container',
  'field-selector',
  'sort-by',
  'template',
  'label-columns',
  'chunk-size',
  'type',
  'from-literal',
  'from-file',
  'from-env-file',
  'image',
  'port',
  'replicas',
  'timeout',
  'since',
  'tail',
  'since-time',
  'grace-period',
  'patch',
  'patch-file',
  'kustomize',
  'subresource',
  'field-manager',
  'revision',
  'to-revision',
  'address',
  'raw',
  'for',
  'overrides',
  'env',
  'limits',
  'requests',
  'target-port',
  'name',
  'protocol',
  'min',
  'max',
  'cpu-percent',
  'local-port',
  'pod-running-timeout',
  'prune-allowlist',
  'log-file',
];

const namespaceLevel = new Set([
  'apply',
  'create',
  'replace',
  'diff',
  'run',
  'debug',
  'top',
  'events',
  'kustomize',
]);
const kindVerbs = new Set([
  'get',
  'describe',
  'delete',
  'edit',
  'patch',
  'label',
  'annotate',
  'scale',
  'autoscale',
  'expose',
  'wait',
  'rollout',
  'set',
  'taint',
  'cordon',
  'uncordon',
  'drain',
]);
const podVerbs = new Set(['exec', 'attach', 'logs', 'port-forward']);
// The API server's own service: forwarding to it opens the whole cluster.
const apiServerService = /\/namespaces\/default\/services\/kubernetes$/;
const noReach = new Set([
  'version',
  'api-resources',
  'api-versions',
  'explain',
  'completion',
  'help',
  'auth',
]);

const configReads = new Set([
  'view',
  'get-contexts',
  'get-clusters',
  'get-users',
  'current-context',
]);

/**
 * The context and namespace a command works in. A `--context` or `-n` on the line wins;
 * otherwise they are the kubeconfig's, known only through `ShellResourcesOptions.kubernetes`
 * and only for the default kubeconfig (not `--kubeconfig` or `KUBECONFIG` on the line).
 * Undefined: the context is unknown; a namespace left undefined is unknown (the whole
 * context).
 */
function contextAndNamespace(
  parsed: ParsedOptions,
  context: CommandContext,
): { context: string; namespace: string | undefined } | undefined {
  const named = optionValue(parsed, '--context');
  const namespace = optionValue(parsed, '-n', '--namespace');
  if (named === null || namespace === null) return undefined;
  const otherConfig = hasOption(parsed, '--kubeconfig') || isSet(context.env, 'KUBECONFIG');
  const known = otherConfig ? undefined : context.kubernetes;
  const current = named ?? known?.context;
  if (current === undefined) return undefined;
  const defaultNamespace =
    known !== undefined && known.context === current ? known.namespace : undefined;
  return { context: current, namespace: namespace ?? defaultNamespace };
}

/** `kind/name`, or `KIND[,KIND] [NAME…]`. */
function kindTargets(words: readonly Arg[], base: KubernetesTarget): string[] {
  const [first, ...names] = words;
  if (first === undefined) return [kubernetesResource(base)];
  if (first === null) return [everything];
  const slashed = words.filter((word) => word?.includes('/'));
  if (slashed.length > 0) {
    return words.map((word) => {
      const [kind, name] = (word ?? '').split('/');
      return word === null ? everything : kubernetesResource({ ...base, kind, name });
    });
  }
  const kinds = first.split(',');
  if (names.length === 0) return kinds.map((kind) => kubernetesResource({ ...base, kind }));
  return kinds.flatMap((kind) =>
    names.map((name) => (name === null ? everything : kubernetesResource({ ...base, kind, name }))),
  );
}

export const extractKubectl: Extractor = (args, context) => {
  const dash = args.indexOf('--'); // `exec pod -- cmd`: the command runs in the pod
  const own = dash === -1 ? args : args.slice(0, dash);
  const spec = { short: 'nlcofskp', long: valueLong };
  const verb = parseOptions(own, spec).positionals[0];
  // `-f` is --follow for logs and attach, --filename elsewhere.
  const follow = verb === 'logs' || verb === 'attach';
  const parsed = parseOptions(own, follow ? { ...spec, short: 'nlcosp' } : spec);
  const [, ...words] = parsed.positionals;
  if (verb === undefined) return [];
  // `--server` and `--cluster` send the request to a cluster no context names.
  if (hasOption(parsed, '-s', '--server', '--cluster')) return [everything];
  if (verb === null) return [everything];
  const files = optionValues(
    parsed,
    '--kubeconfig',
    ...(follow ? [] : ['-f', '--filename']),
    '-k',
    '--kustomize',
    '--from-file',
    '--from-env-file',
    '--patch-file',
  )
    .filter((file) => file !== '-')
    .map((file) => context.file(file === null ? null : file.replace(/^[^=/]+=/, '')));
  const raw = optionValue(parsed, '--raw');
  const reconcile = verb === 'auth' && words[0] === 'reconcile';
  // Client-side and read-only verbs need no context (`version`, `auth can-i`, `explain`).
  if (raw === undefined && !reconcile && noReach.has(verb)) return files;
  const where = contextAndNamespace(parsed, context);
  if (where === undefined) return [everything];
  const base: KubernetesTarget = {
    ...where,
    allNamespaces: where.namespace === undefined || hasOption(parsed, '-A', '--all-namespaces'),
  };
  if (raw !== undefined) return [...files, kubectlRawResource(raw, base)];
  // `proxy` serves the whole API to any local HTTP client; `auth reconcile` rewrites RBAC.
  if (verb === 'proxy' || reconcile) {
    return [...files, kubernetesResource({ ...base, allNamespaces: true })];
  }
  if (verb === 'config') {
    // Writes change the context or namespace of every later command.
    if (!configReads.has(words[0] ?? '')) return [everything];
    return [...files, kubernetesResource({ ...base, allNamespaces: true })];
  }
  if (kindVerbs.has(verb)) {
    // `rollout status deploy/x`, `set image deploy/x …`: a sub-verb comes first.
    const targets = verb === 'rollout' || verb === 'set' ? words.slice(1) : words;
    const operands = verb === 'set' ? targets.filter((word) => !word?.includes('=')) : targets;
    if (optionValues(parsed, '-f', '--filename').length > 0 && !follow)
      return [...files, kubernetesResource(base)];
    return [...files, ...kindTargets(operands, base)];
  }
  if (podVerbs.has(verb)) {
    const [pod] = words;
    if (pod === undefined) return [...files, kubernetesResource(base)];
    const targets = pod?.includes('/')
      ? kindTargets([pod], base)
      : kindTargets(['pods', pod], base);
    return [
      ...files,
      ...targets.map((target) =>
        apiServerService.test(target)
          ? kubernetesResource({ ...base, allNamespaces: true })
          : target,
      ),
    ];
  }
  if (verb === 'cp') {
    const remote = words.find((word) => word === null || /^[^/]+:/.test(word));
    const local = words.filter((word) => word !== remote);
    if (remote === null || remote === undefined) return [...files, kubernetesResource(base)];
    const [where = ''] = remote.split(':');
    const [namespaceOrPod, pod] = where.split('/');
    const target =
      pod === undefined
        ? { ...base, kind: 'pods', name: namespaceOrPod }
        : { ...base, namespace: namespaceOrPod, allNamespaces: false, kind: 'pods', name: pod };
    return [...files, kubernetesResource(target), ...local.map((path) => context.file(path))];
  }
  if (verb === 'create' && words[0] !== undefined && words[0] !== null && words.length >= 2) {
    // `create secret generic NAME`, `create deployment NAME`
    const name = words[0] === 'secret' || words[0] === 'service' ? words[2] : words[1];
    return [
      ...files,
      name === null ? everything : kubernetesResource({ ...base, kind: words[0], name }),
    ];
  }
  if (namespaceLevel.has(verb)) return [...files, kubernetesResource(base)];
  return [everything]; // plugins and verbs we do not know
};
