import { everything } from '../scope/canonical-resource.js';
import type { CommandContext, Extractor } from './command-context.js';
import { gitFileArguments } from './git-file-arguments.js';
import { readGitEnvironment, resolveGitPath } from './git-location.js';
import {
  hasOption,
  optionValue,
  optionValues,
  type ParsedOptions,
  parseOptions,
} from './parse-options.js';
import type { Arg } from './shell-word.js';

// `-c` keys that cannot run a command or rewrite where a URL points.
const safeConfig =
  /^(user\.|color\.|advice\.|init\.defaultbranch|core\.autocrlf|core\.quotepath|safe\.directory|pull\.(rebase|ff)|http\.sslverify|push\.default|log\.|diff\.renames|gc\.auto|fetch\.prune|credential\.helper=$)/i;

const localCommands = new Set([
  'status',
  'log',
  'diff',
  'show',
  'add',
  'commit',
  'checkout',
  'switch',
  'branch',
  'tag',
  'merge',
  'reset',
  'restore',
  'stash',
  'rm',
  'mv',
  'init',
  'blame',
  'grep',
  'ls-files',
  'rev-parse',
  'describe',
  'cherry-pick',
  'revert',
  'reflog',
  'shortlog',
  'show-ref',
  'for-each-ref',
  'cat-file',
  'ls-tree',
  'worktree',
  'clean',
  'apply',
  'am',
  'format-patch',
  'notes',
  'gc',
  'fsck',
  'count-objects',
  'version',
  'help',
  'config',
  'rev-list',
  'merge-base',
  'name-rev',
  'whatchanged',
  'sparse-checkout',
  'update-index',
  'hash-object',
  'write-tree',
  'read-tree',
  'symbolic-ref',
  'update-ref',
  'check-ignore',
  'var',
  'range-diff',
  'prune',
  'repack',
  'maintenance',
]);

/** A git remote argument: a URL or scp-like address, a known remote name, or a local path. */
function remoteResource(remote: Arg, context: CommandContext): string {
  if (remote === null) return everything;
  const helper = /^([a-z][a-z0-9+.-]*)::(.*)$/i.exec(remote);
  if (helper !== null) {
    // `ext::` and `fd::` run commands; other helpers wrap an ordinary address.
    const [, name = '', address = ''] = helper;
    return name === 'ext' || name === 'fd' ? everything : remoteResource(address, context);
  }
  if (remote.includes('://') || /^[^/\s]+:/.test(remote)) return context.url(remote);
  const known = context.gitRemotes.get(remote);
  if (known !== undefined) return context.url(known);
  if (/^(\/|\.\.?(\/|$)|~)/.test(remote)) return context.file(remote);
  return everything; // a remote name we cannot resolve
}

const transferOptions = {
  short: 'ojbc',
  long: [
    'depth',
    'push-option',
    'jobs',
    'negotiation-tip',
    'refmap',
    'shallow-since',
    'shallow-exclude',
    'server-option',
    'deepen',
    'filter',
    'branch',
    'origin',
    'config',
    'reference',
    'reference-if-able',
    'separate-git-dir',
    'template',
    'bundle-uri',
    'recurse-submodules-default',
  ],
};

export const extractGit: Extractor = (args, context) => {
  let index = 0;
  let dir: Arg = '.';
  const repositoryPaths = readGitEnvironment(context);
  if (repositoryPaths === undefined) return [everything];
  for (; index < args.length; index++) {
    const arg = args[index] ?? null;
    if (arg === '-C') {
      const next = args[++index] ?? null;
      dir = dir === null || next === null ? null : next.startsWith('/') ? next : `${dir}/${next}`;
    } else if (arg === '-c') {
      if (!safeConfig.test(args[++index] ?? '')) return [everything];
    } else if (arg === null || !arg.startsWith('-')) break;
    else if (/^--(git-dir|work-tree)=/.test(arg))
      repositoryPaths.push(arg.slice(arg.indexOf('=') + 1));
    else if (arg === '--git-dir' || arg === '--work-tree')
      repositoryPaths.push(args[++index] ?? null);
    else if (/^--(exec-path|config-env)/.test(arg)) return [everything];
  }
  const command = args[index];
  const rest = args.slice(index + 1);
  const file = (path: Arg) => context.file(resolveGitPath(path, dir));
  // `--git-dir` and `--work-tree` are read from the `-C` directory, wherever they appear.
  const repository = [dir, ...repositoryPaths].map(file);
  if (command === undefined) return [];
  if (command === null) return [everything];
  const parsed = parseOptions(rest, transferOptions);
  if (hasOption(parsed, '-u', '--upload-pack', '--receive-pack', '--exec', '--template'))
    return [everything];
  if (command === 'apply' && hasOption(parsed, '--unsafe-paths')) return [everything];
  if (!optionValues(parsed, '-c', '--config').every((v) => safeConfig.test(v ?? '')))
    return [everything];
  if (command === 'config' && !isSafeConfigWrite(rest)) return [everything];
  const files = gitFileArguments(command, rest, parsed.positionals).map(file);
  const reached = extractCommand(command, rest, parsed, repository, file, context);
  return reached.includes(everything) ? [everything] : [...new Set([...reached, ...files])];
};

/** `git config KEY VALUE` (or `set`) of a key that may run a command or redirect a URL. */
function isSafeConfigWrite(args: readonly Arg[]): boolean {
  const { positionals } = parseOptions(args, {
    short: 'f',
    long: ['file', 'blob', 'type', 'default', 'comment', 'value', 'url'],
  });
  const [first, ...others] = positionals;
  const [key, value] = first === 'set' ? others : positionals;
  if (value === undefined || first === 'get' || first === 'list') return true;
  return key !== undefined && key !== null && value !== null && safeConfig.test(`${key}=${value}`);
}

function extractCommand(
  command: string,
  rest: readonly Arg[],
  parsed: ParsedOptions,
  repository: string[],
  file: (path: Arg) => string,
  context: CommandContext,
): string[] {
  switch (command) {
    case 'clone': {
      const [url, target] = parsed.positionals;
      const name =
        url
          ?.replace(/\/+$/, '')
          .split(/[/:]/)
          .pop()
          ?.replace(/\.git$/, '') ?? null;
      return [remoteResource(url ?? null, context), file(target === undefined ? name : target)];
    }
    case 'fetch':
    case 'pull':
    case 'push':
    case 'ls-remote': {
      if (hasOption(parsed, '--all', '--multiple')) return [everything];
      const remote = parsed.positionals[0];
      // Without a remote, git uses the branch's (its config says which): any known remote.
      const remotes = remote === undefined ? [...context.gitRemotes.keys()] : [remote];
      if (remotes.length === 0) return [everything];
      return [...repository, ...remotes.map((name) => remoteResource(name, context))];
    }
    case 'remote':
      return extractRemote(parsed.positionals, repository, context);
    case 'submodule': {
      const [verb, url, path] = parseOptions(rest, {
        short: 'b',
        long: ['branch', 'name', 'reference', 'depth'],
      }).positionals;
      if (verb !== 'add')
        return verb === 'status' || verb === 'summary' ? repository : [everything];
      return [...repository, remoteResource(url ?? null, context), file(path ?? '.')];
    }
    case 'archive': {
      const remote = optionValue(
        parseOptions(rest, { short: 'o', long: ['remote', 'output', 'prefix', 'format'] }),
        '--remote',
      );
      return remote === undefined ? repository : [remoteResource(remote, context)];
    }
    case 'rebase':
      return hasOption(
        parseOptions(rest, { short: 'x', long: ['exec', 'onto', 'strategy'] }),
        '-x',
        '--exec',
      )
        ? [everything]
        : repository;
    case 'bundle':
      return repository;
    default:
      return localCommands.has(command) ? repository : [everything];
  }
}

function extractRemote(
  positionals: readonly Arg[],
  repository: readonly string[],
  context: CommandContext,
): string[] {
  const [verb, name, url] = positionals;
  if (verb === 'add' || verb === 'set-url') {
    if (name !== null && name !== undefined && url !== null && url !== undefined)
      context.gitRemotes.set(name, url);
    return [...repository, remoteResource(url ?? null, context)];
  }
  // `show`, `prune` and `update` contact the remote.
  if (verb === 'show' || verb === 'prune' || verb === 'update')
    return [...repository, remoteResource(name ?? null, context)];
  return [...repository];
}
