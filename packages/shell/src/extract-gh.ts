import { everything } from '@recourse/core';
import type { CommandContext, Extractor } from './command-context.js';
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

/** `o/r`, `HOST/o/r` or a URL naming a repository. */
function repositoryResource(repository: Arg, context: CommandContext): string {
  if (repository === null) return everything;
  if (repository.includes('://')) return context.url(repository);
  const parts = repository.split('/');
  if (parts.length === 3) return context.url(`https://${repository}`);
  return parts.length === 2 ? context.url(`https://github.com/${repository}`) : allOfGitHub;
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
    // A query naming one repository through variables reaches it; any other may reach all.
    if (owner && name) return [...inputs, repositoryResource(`${owner}/${name}`, context)];
    return [...inputs, allOfGitHub];
  }
  // `{owner}` / `{repo}` placeholders name the current directory's repository.
  if (endpoint.includes('{')) return [...inputs, allOfGitHub];
  const host = optionValue(parsed, '--hostname');
  const path = endpoint.replace(/^\/+/, '');
  if (host === null) return [everything];
  const base =
    host === undefined || host === 'github.com'
      ? 'https://api.github.com'
      : `https://${host}/api/v3`;
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
  if (command === 'repo') {
    const [verb, target] = parsed.positionals;
    if (verb === 'list') {
      return [
        target === undefined ? allOfGitHub : context.url(`https://github.com/${target ?? ''}`),
      ];
    }
    return [target === undefined ? allOfGitHub : repositoryResource(target, context)];
  }
  if (command === 'gist') return ['https://gist.github.com'];
  if (command === 'search' || command === 'org') return [allOfGitHub];
  if (!repositoryCommands.has(command)) return [everything];
  if (repository !== undefined) return [repositoryResource(repository, context)];
  // Without --repo the repository comes from the current directory or a URL argument.
  const urls = parsed.positionals.filter((arg) => arg?.includes('://'));
  return urls.length > 0 ? urls.map((url) => context.url(url)) : [allOfGitHub];
};
