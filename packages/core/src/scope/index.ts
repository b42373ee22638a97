export { shellResources } from '../shell/shell-resources.js';
export type { ShellResourcesOptions } from '../shell/shell-resources-options.js';
export { everything } from './canonical-resource.js';
export { canonicaliseResource } from './canonicalise-resource.js';
export { findCoveringDenial } from './find-covering-denial.js';
export { type HttpCapability, httpCapability, httpResource } from './http-resource.js';
export {
  type KubernetesTarget,
  kubernetesResource,
  type PostgresTarget,
  postgresResource,
  s3Resource,
  sshResource,
} from './infra-resource.js';
export { type PathResourceOptions, pathResource } from './path-resource.js';
export { resourceCovers, resourcesOverlap } from './resource-match.js';
export {
  createScopeGuard,
  type ScopeGuard,
  type ScopeGuardOptions,
  type ScopeVerdict,
} from './scope-guard.js';
export { urlResource } from './url-resource.js';
