import type { CommandContext } from './command-context.js';
import type { Arg } from './shell-word.js';

// Variables naming a repository path outside the working directory.
const pathVariables = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_COMMON_DIR',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_NAMESPACE_DIR',
];

// Variables that run a program or read a config file we cannot see (which may run one).
// GIT_SSH_COMMAND is left to the remote: it changes how git connects, not where.
const programVariables = [
  'GIT_EXEC_PATH',
  'GIT_SSH',
  'GIT_PROXY_COMMAND',
  'GIT_EXTERNAL_DIFF',
  'GIT_PAGER',
  'GIT_EDITOR',
  'GIT_SEQUENCE_EDITOR',
  'GIT_ASKPASS',
  'GIT_TEMPLATE_DIR',
  'GIT_CONFIG',
  'GIT_CONFIG_GLOBAL',
  'GIT_CONFIG_SYSTEM',
  'GIT_CONFIG_COUNT',
  'GIT_CONFIG_PARAMETERS',
];
const harmlessPrograms = new Set(['', 'cat', 'true', 'less', 'more', ':', '/dev/null']);

/** The repository paths the environment names, or undefined when it may run anything. */
export function readGitEnvironment(context: CommandContext): Arg[] | undefined {
  for (const name of programVariables) {
    if (!context.env.has(name)) continue;
    const value = context.env.get(name) ?? null;
    if (value === null || !harmlessPrograms.has(value.trim())) return undefined;
  }
  const paths: Arg[] = [];
  for (const name of pathVariables) {
    if (!context.env.has(name)) continue;
    const value = context.env.get(name) ?? null;
    // Alternates are a colon-separated list.
    paths.push(...(value === null ? [null] : value.split(':').filter((p) => p !== '')));
  }
  return paths;
}

/** A path as git reads it: relative to the `-C` directory (unknown when that is unknown). */
export function resolveGitPath(path: Arg, dir: Arg): Arg {
  if (path === null || path.startsWith('/') || path.startsWith('~')) return path;
  if (dir === null) return null;
  return dir === '.' ? path : `${dir}/${path}`;
}
