import { everything } from '../scope/canonical-resource.js';
import type { CommandContext, Extractor } from './command-context.js';
import { isSet, variableOf } from './environment.js';
import { optionValue, optionValues, type ParsedOptions, parseOptions } from './parse-options.js';
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

/** Hosts that are not GitHub: a remote there says nothing of gh's host. */
const otherCodeHosts = new Set([
  'gitlab.com',
  'www.gitlab.com',
  'bitbucket.org',
  'www.bitbucket.org',
]);

/** The host and `owner/repo…` path of a remote URL (`https://h/o/r`, `ssh://git@h/o/r`, `git@h:o/r`). */
function remoteParts(url: string): { host: string; path: string } | undefined {
  const full = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/]*@)?([^/:?#]+)(?::\d*)?\/([^?#]+)/i.exec(url);
  const scp = full ? null : /^(?:[^@/:]+@)?([^/:]+):(?!\/)([^?#]+)$/.exec(url);
  const match = full ?? scp;
  if (!match?.[1] || !match[2]) return undefined;
  return { host: match[1].toLowerCase().replace(/\.$/, ''), path: match[2] };
}

/** The GitHub Enterprise hosts of the working copy's remotes: gh may pick one of them. */
function enterpriseHosts(context: CommandContext): string[] {
  const hosts: string[] = [];
  for (const url of context.gitRemotes.values()) {
    const host = remoteParts(url)?.host;
    if (host && host !== 'github.com' && !otherCodeHosts.has(host)) hosts.push(host);
  }
  return hosts;
}

/**
 * The hosts gh talks to when the line names none: `GH_HOST` as the line, the options or this
 * process's environment set it; otherwise github.com, and the GitHub Enterprise host of a
 * working copy remote (gh may pick it). null when `GH_HOST` is set to a value we cannot know.
 */
function defaultHosts(context: CommandContext): string[] | null {
  const said = variableOf(context.env, 'GH_HOST');
  if (said === null) return null;
  const host = said === undefined ? process.env.GH_HOST : said;
  if (host) return [host.toLowerCase()];
  return [...new Set(['github.com', ...enterpriseHosts(context)])];
}

/**
 * A resource on GitHub moved to `host`: GitHub Enterprise has github.com's layout (owner and
 * repository names case-insensitive, `/-/…` for the account), so a denial learnt on one
 * route covers the others on the same host.
 */
function onHost(host: string, githubResource: string): string {
  if (host === 'github.com' || !githubResource.startsWith(allOfGitHub)) return githubResource;
  return `https://${host}${githubResource.slice(allOfGitHub.length)}`;
}

/** `owner`, `owner/repo` or a deeper path of a repository on `host`. */
function pathOn(host: string, path: string, context: CommandContext): string {
  return onHost(host, context.url(`${allOfGitHub}/${path}`));
}

/** `o/r`, `HOST/o/r` or a URL naming a repository: one resource per host gh may use. */
function repositoryResources(repository: Arg, context: CommandContext): string[] {
  if (repository === null) return [everything];
  if (repository.includes('://')) {
    const parts = remoteParts(repository);
    return [parts ? pathOn(parts.host, parts.path, context) : context.url(repository)];
  }
  const parts = repository.split('/');
  if (parts.length === 3)
    return [pathOn(parts[0]!.toLowerCase(), parts.slice(1).join('/'), context)];
  const hosts = defaultHosts(context);
  if (hosts === null) return [everything];
  return hosts.map((host) =>
    parts.length === 2 ? pathOn(host, repository, context) : hostResource(host),
  );
}

function hostResource(host: string): string {
  return host === 'github.com' ? allOfGitHub : `https://${host}`;
}

/**
 * The repository of the working copy, which gh reads from `GH_REPO` or the git remotes:
 * each known remote (gh picks one of them), or `*` when neither is known.
 */
function workingCopyRepositories(context: CommandContext): string[] {
  if (isSet(context.env, 'GH_REPO')) {
    return repositoryResources(variableOf(context.env, 'GH_REPO') ?? null, context);
  }
  const remotes = [...context.gitRemotes.values()];
  if (remotes.length === 0) return [everything];
  return remotes.map((url) => {
    const parts = remoteParts(url);
    return parts ? pathOn(parts.host, parts.path, context) : context.url(url);
  });
}

/** The hosts `gh api` talks to: `--hostname`, else the default ones; null when unknown. */
function apiHosts(parsed: ParsedOptions, context: CommandContext): string[] | null {
  const named = optionValue(parsed, '--hostname');
  if (named === null) return null;
  return named === undefined ? defaultHosts(context) : [named.toLowerCase()];
}

function apiResource(args: readonly Arg[], context: CommandContext): string[] {
  const parsed = parseOptions(args, ghOptions);
  const inputs = optionValues(parsed, '--input')
    .filter((file) => file !== '-')
    .map((file) => context.file(file));
  const endpoint = parsed.positionals[0];
  if (endpoint === undefined || endpoint === null) return [everything];
  if (endpoint.includes('://')) return [...inputs, context.url(endpoint)];
  // `{owner}` / `{repo}` placeholders name the working copy's repository.
  if (endpoint.includes('{')) return [...inputs, ...workingCopyRepositories(context)];
  const hosts = apiHosts(parsed, context);
  if (hosts === null) return [everything];
  if (endpoint === 'graphql') {
    const fields = new Map<string, Arg>();
    for (const field of optionValues(parsed, '-f', '--raw-field', '-F', '--field')) {
      const [name, ...value] = (field ?? '').split('=');
      if (name !== undefined) fields.set(name, field === null ? null : value.join('='));
    }
    const owner = fields.get('owner');
    const name = fields.get('name') ?? fields.get('repo');
    // A query naming one repository through variables reaches it; any other may reach all.
    if (owner && name)
      return [...inputs, ...hosts.map((h) => pathOn(h, `${owner}/${name}`, context))];
    return [...inputs, ...hosts.map(hostResource)];
  }
  // The API's paths map as api.github.com's do: a repository route to the repository, an
  // account route to the account, anything else to the whole host.
  const path = endpoint.replace(/^\/+/, '');
  return [
    ...inputs,
    ...hosts.map((host) => onHost(host, context.url(`https://api.github.com/${path}`))),
  ];
}

export const extractGh: Extractor = (args, context) => {
  const [command, ...rest] = args;
  if (command === undefined) return [];
  if (command === null) return [everything];
  if (noReach.has(command)) return [];
  if (command === 'api') return apiResource(rest, context);
  const parsed = parseOptions(rest, ghOptions);
  const repository = optionValue(parsed, '-R', '--repo');
  const hosts = defaultHosts(context);
  if (command === 'repo') {
    const [verb, target] = parsed.positionals;
    if (verb === 'list') {
      if (hosts === null || target === null) return [everything];
      if (target === undefined) return hosts.map(hostResource);
      return hosts.map((host) => pathOn(host, target, context));
    }
    if (target !== undefined) return repositoryResources(target, context);
    if (verb !== 'create') return workingCopyRepositories(context);
    return hosts === null ? [everything] : hosts.map(hostResource);
  }
  if (hosts === null && (command === 'gist' || command === 'search' || command === 'org'))
    return [everything];
  if (command === 'gist')
    return (hosts ?? []).map((h) =>
      h === 'github.com' ? 'https://gist.github.com' : hostResource(h),
    );
  if (command === 'search' || command === 'org') return (hosts ?? []).map(hostResource);
  if (!repositoryCommands.has(command)) return [everything];
  if (repository !== undefined) return repositoryResources(repository, context);
  // Without --repo the repository comes from a URL argument or the working copy.
  const urls = parsed.positionals.filter((arg) => arg?.includes('://'));
  return urls.length > 0
    ? urls.flatMap((url) => repositoryResources(url, context))
    : workingCopyRepositories(context);
};
