export type { ShellResourcesOptions } from '@recourse/core';
export { shellResources } from './shell-resources.js';
