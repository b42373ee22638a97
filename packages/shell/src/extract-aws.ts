import { everything, s3Resource } from '@recourse/core';
import type { CommandContext, Extractor } from './command-context.js';
import { isSet, variableOf } from './environment.js';
import type { Arg } from './shell-word.js';

// aws options take a value unless they are one of these flags.
const flags = new Set([
  '--debug',
  '--no-verify-ssl',
  '--no-paginate',
  '--no-sign-request',
  '--no-cli-pager',
  '--cli-auto-prompt',
  '--no-cli-auto-prompt',
  '--recursive',
  '--dryrun',
  '--quiet',
  '--delete',
  '--follow-symlinks',
  '--no-follow-symlinks',
  '--no-progress',
  '--only-show-errors',
  '--human-readable',
  '--summarize',
  '--exact-timestamps',
  '--size-only',
  '--force',
  '--no-guess-mime-type',
  '--ignore-glacier-warnings',
  '--force-glacier-transfer',
  '--request-payer',
  '--dry-run',
  '--no-dry-run',
  '--generate-cli-skeleton',
]);

/**
 * An access point (`arn:aws:s3:…:accesspoint/…`, its `…-s3alias` alias, a Multi-Region
 * `….mrap` alias, an Object Lambda ARN) fronts a bucket its own configuration names: any.
 */
function bucketResource(bucket: string, key?: string | undefined): string {
  if (/^arn:|-s3alias$|\.mrap$/i.test(bucket)) return everything;
  return s3Resource(bucket, key);
}

function s3Path(path: string): string {
  const rest = path.slice('s3://'.length);
  if (/^arn:/i.test(rest)) return everything;
  const [bucket = '', ...key] = rest.split('/');
  return bucketResource(bucket, key.join('/'));
}

/** The endpoint a command is sent to instead of AWS's own: the line's, or the environment's. */
function endpoints(options: Map<string, Arg>, service: string, context: CommandContext): Arg[] {
  const found: Arg[] = [];
  if (options.has('--endpoint-url')) found.push(options.get('--endpoint-url') ?? null);
  const id = service === 's3api' ? 's3' : service;
  const variable = `AWS_ENDPOINT_URL_${id.toUpperCase().replace(/-/g, '_')}`;
  for (const name of ['AWS_ENDPOINT_URL', variable]) {
    if (isSet(context.env, name)) found.push(variableOf(context.env, name) ?? null);
  }
  return found;
}

function fileValue(value: Arg, context: CommandContext): string | undefined {
  if (value === null) return undefined;
  const match = /^fileb?:\/\/(.+)$/.exec(value);
  return match?.[1] === undefined ? undefined : context.file(match[1]);
}

export const extractAws: Extractor = (args, context) => {
  const positionals: Arg[] = [];
  const options = new Map<string, Arg>();
  const resources: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] ?? null;
    if (arg === null || !arg.startsWith('--')) {
      positionals.push(arg);
      continue;
    }
    const equals = arg.indexOf('=');
    const name = equals === -1 ? arg : arg.slice(0, equals);
    const value =
      equals !== -1 ? arg.slice(equals + 1) : flags.has(name) ? '' : (args[++index] ?? null);
    options.set(name, value);
    const file = fileValue(value, context);
    if (file !== undefined) resources.push(file);
  }
  const [service, operation, ...operands] = positionals;
  if (service === undefined || service === 'configure' || service === 'help') return resources;
  if (service === null) return [everything];
  // The request goes to the endpoint; what it names there is read as usual.
  resources.push(...endpoints(options, service, context).map((url) => context.url(url)));
  if (service === 's3') {
    const paths = operands.filter((operand) => operand !== '-');
    if (operation === 'ls' && paths.length === 0) return [...resources, 'aws://s3'];
    for (const path of paths) {
      resources.push(
        path === null ? everything : path.startsWith('s3://') ? s3Path(path) : context.file(path),
      );
    }
    return resources;
  }
  if (service === 's3api') {
    const bucket = options.get('--bucket');
    const key = options.get('--key') ?? options.get('--prefix');
    const source = options.get('--copy-source');
    if (source !== undefined)
      resources.push(source === null ? everything : s3Path(`s3://${source.replace(/^\/+/, '')}`));
    if (bucket === null || key === null) return [everything];
    resources.push(bucket === undefined ? 'aws://s3' : bucketResource(bucket, key));
    // get-object writes its positional outfile.
    for (const operand of operands) resources.push(context.file(operand));
    return resources;
  }
  return [...resources, `aws://${service.toLowerCase()}`];
};
