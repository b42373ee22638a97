import { ShellParserUnavailableError } from '../errors.js';
import { everything } from '../scope/canonical-resource.js';
import type { ShellResourcesOptions } from './shell-resources-options.js';
import { walkScript } from './shell-walker.js';
import { isUnknownResource } from './shell-word.js';

/**
 * What a shell command line would reach, as canonical resources (see canonical-resource.ts).
 * The line is parsed by a real Bash parser; wrappers (`bash -c`, `sudo`, `env`, `xargs`, …),
 * chains, pipes, substitutions and redirections are followed. Anything it cannot parse or
 * understand — an unknown program, `eval`, inline interpreter code, a program name from a
 * variable — reaches `*` (fail closed). Throws only `ShellParserUnavailableError`, when the
 * parser cannot be loaded: a policy's resource function that throws reaches `*` as well,
 * and the runtime says so (`resource.failed`).
 */
export function shellResources(command: string, options: ShellResourcesOptions = {}): string[] {
  try {
    return reachOf(command, options);
  } catch (error) {
    if (ShellParserUnavailableError.isInstance(error)) throw error;
    return [everything];
  }
}

/** What `shellResources` answers, without its net: a throw here is a bug, not an answer. */
export function reachOf(command: string, options: ShellResourcesOptions): string[] {
  const home = options.home ?? process.env.HOME;
  const variables = new Map<string, string | null>(Object.entries(options.env ?? {}));
  if (home !== undefined && !variables.has('HOME')) variables.set('HOME', home);
  const state = {
    cwd: options.cwd ?? process.cwd(),
    home,
    variables,
    functions: new Set<string>(),
    gitRemotes: new Map(Object.entries(options.gitRemotes ?? {})),
    kubernetes: options.kubernetes,
    inputFromLine: false,
    depth: 0,
    out: new Set<string>(),
  };
  walkScript(command, state);
  const resources = [...state.out];
  // A resource built from an unknown value could be anything; `*` makes the rest redundant.
  if (resources.some((r) => r === everything || isUnknownResource(r))) return [everything];
  return resources;
}
