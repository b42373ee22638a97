import type { Arg, Variables } from './shell-word.js';

/**
 * A variable of the command's environment as the line or the options give it: its value,
 * `''` when they say it is unset, null when it is set to a value we cannot know, undefined
 * when neither says anything (the environment is not ours to see).
 */
export function variableOf(env: Variables, name: string): Arg | undefined {
  return env.has(name) ? (env.get(name) ?? null) : undefined;
}

/** The line or the options set the variable to something (maybe unknown), not to `''`. */
export function isSet(env: Variables, name: string): boolean {
  const value = variableOf(env, name);
  return value !== undefined && value !== '';
}

/**
 * A variable that names a program's target when the line names none (`PGHOST`, `GH_HOST`):
 * its value, undefined when it is unset (the program's default applies), null when it is
 * unknown, including when nothing says whether it is set.
 */
export function targetVariable(env: Variables, name: string): string | undefined | null {
  const value = variableOf(env, name);
  if (value === undefined) return null;
  return value === '' ? undefined : value;
}
