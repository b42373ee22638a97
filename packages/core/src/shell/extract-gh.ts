import { everything } from '../scope/canonical-resource.js';
import type { CommandContext, Extractor } from './command-context.js';
import { isSet, targetVariable, variableOf } from './environment.js';
import { optionValue, optionValues, parseOptions } from './parse-options.js';
import type { Arg } from './shell-word.js';

const allOfGitHub = 'https://github.com';

const ghOptions = {
  short: 'RXHfFqtpbBcjlLASsw',
  long: [
    'repo',
    'method',
    'header',
    'raw-field',
    'field',
    'input',
    'jq',
    'template',
    'hostname',
    'preview',
    'cache',
    'title',
    'body',
    'body-file',
    'base',
    'head',
    'label',
    'assignee',
    'reviewer',
    'milestone',
    'limit',
    'state',
    'author',
    'search',
    'json',
    'branch',
    'workflow',
    'user',
    'event',
    'commit',
    'visibility',
    'description',
    'homepage',
    'team',
    'notes',
    'notes-file',
    'target',
    'org',
    'env',
    'app',
    'color',
    'name',
    'sort',
    'order',
    'owner',
  ],
};

const repositoryCommands = new Set([
  'pr',
  'issue',
  'release',
  'run',
  'workflow',
  'secret',
  'variable',
  'label',
  'cache',
  'ruleset',
  'attestation',
  'project',
  'codespace',
  'browse',
]);
const noReach = new Set([
  'auth',
  'config',
  'help',
  'version',
  'completion',
  'status',
  '--version',
  '--help',
]);

/**
 * The host gh talks to when the line names none: `GH_HOST`, set on the line or in the
 * options (`''`: unset, github.com); null when the environment may set it to anything.
 */
function defaultHost(context: CommandContext): string | null {
  const host = targetVariable(context.env, 'GH_HOST');
  return host === undefined ? 'github.com' : host;
}

/** `o/r`, `HOST/o/r` or a URL naming a repository. */
function repositoryResource(repository: Arg, context: CommandContext): string {
  if (repository === null) return everything;
  if (repository.includes('://')) return context.url(repository);
  const parts = repository.split('/');
  if (parts.length === 3) return context.url(`https://${repository}`);
  const host = defaultHost(context);
  if (host === null) return everything;
  return parts.length === 2 ? context.url(`https://${host}/${repository}`) : hostResource(host);
}

function hostResource(host: string | null): string {
  return host === null ? everything : host === 'github.com' ? allOfGitHub : `https://${host}`;
}

/**
 * The repository of the working copy, which gh reads from `GH_REPO` or the git remotes:
 * each known remote (gh picks one of them), or `*` when neither is known.
 */
function workingCopyRepositories(context: CommandContext): string[] {
  if (isSet(context.env, 'GH_REPO')) {
    return [repositoryResource(variableOf(context.env, 'GH_REPO') ?? null, context)];
  }
  const remotes = [...context.gitRemotes.values()];
  return remotes.length === 0 ? [everything] : remotes.map((url) => context.url(url));
}

function apiResource(args: readonly Arg[], context: CommandContext): string[] {
  const parsed = parseOptions(args, ghOptions);
  const inputs = optionValues(parsed, '--input')
    .filter((file) => file !== '-')
    .map((file) => context.file(file));
  const endpoint = parsed.positionals[0];
  if (endpoint === undefined || endpoint === null) return [everything];
  if (endpoint === 'graphql') {
    const fields = new Map<string, Arg>();
    for (const field of optionValues(parsed, '-f', '--raw-field', '-F', '--field')) {
      const [name, ...value] = (field ?? '').split('=');
      if (name !== undefined) fields.set(name, field === null ? null : value.join('='));
    }
    const owner = fields.get('owner');
    const name = fields.get('name') ?? fields.get('repo');
    const named = optionValue(parsed, '--hostname');
    const host = named === undefined ? defaultHost(context) : named;
    if (host === null) return [everything];
    // A query naming one repository through variables reaches it; any other may reach all.
    if (owner && name) return [...inputs, repositoryResource(`${host}/${owner}/${name}`, context)];
    return [...inputs, hostResource(host)];
  }
  // `{owner}` / `{repo}` placeholders name the working copy's repository.
  if (endpoint.includes('{')) return [...inputs, ...workingCopyRepositories(context)];
  const named = optionValue(parsed, '--hostname');
  const host = named === undefined ? defaultHost(context) : named;
  const path = endpoint.replace(/^\/+/, '');
  if (host === null) return [everything];
  const base = host === 'github.com' ? 'https://api.github.com' : `https://${host}/api/v3`;
  return [...inputs, context.url(`${base}/${path}`)];
}

export const extractGh: Extractor = (args, context) => {
  const [command, ...rest] = args;
  if (command === undefined) return [];
  if (command === null) return [everything];
  if (noReach.has(command)) return [];
  if (command === 'api') return apiResource(rest, context);
  const parsed = parseOptions(rest, ghOptions);
  const repository = optionValue(parsed, '-R', '--repo');
  const host = defaultHost(context);
  if (command === 'repo') {
    const [verb, target] = parsed.positionals;
    if (verb === 'list') {
      if (target === undefined || host === null) return [hostResource(host)];
      return [context.url(`https://${host}/${target ?? ''}`)];
    }
    if (target !== undefined) return [repositoryResource(target, context)];
    return verb === 'create' ? [hostResource(host)] : workingCopyRepositories(context);
  }
  if (command === 'gist') return [host === null ? everything : `https://gist.${host}`];
  if (command === 'search' || command === 'org') return [hostResource(host)];
  if (!repositoryCommands.has(command)) return [everything];
  if (repository !== undefined) return [repositoryResource(repository, context)];
  // Without --repo the repository comes from a URL argument or the working copy.
  const urls = parsed.positionals.filter((arg) => arg?.includes('://'));
  return urls.length > 0 ? urls.map((url) => context.url(url)) : workingCopyRepositories(context);
};
