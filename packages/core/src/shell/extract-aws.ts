import { everything } from '../scope/canonical-resource.js';
import { s3Resource } from '../scope/infra-resource.js';
import type { CommandContext, Extractor } from './command-context.js';
import { isSet, variableOf } from './environment.js';
import { type Arg, isUnknownResource } from './shell-word.js';

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

// Services whose resources live in no region: a name alone says what is reached.
const globalServices = new Set([
  'iam',
  'sts',
  'organizations',
  'route53',
  'route53domains',
  'cloudfront',
  'globalaccelerator',
  'account',
  'budgets',
  'ce',
  'shield',
]);

// Options naming the one resource an operation acts on, first match wins. A name may be an
// ARN, which carries its region.
const nameOptions = [
  '--table-name',
  '--table-arn',
  '--function-name',
  '--secret-id',
  '--queue-url',
  '--topic-arn',
  '--stack-name',
  '--log-group-name',
  '--repository-name',
  '--state-machine-arn',
  '--db-instance-identifier',
  '--db-cluster-identifier',
  '--cluster',
  '--stream-name',
  '--key-id',
  '--user-name',
  '--role-name',
  '--resource-arn',
];

interface Target {
  /** null: the line does not say (the environment's or the profile's region). */
  region: string | null;
  /** undefined: the operation names no one resource; null: it names one we cannot read. */
  name: string | null | undefined;
}

/** `arn:partition:service:region:account:type/name` (or `type:name`). */
function fromArn(arn: string): Target | undefined {
  const parts = arn.split(':');
  if (parts.length < 6 || parts[0]?.toLowerCase() !== 'arn') return undefined;
  const region = parts[3]?.toLowerCase() || null;
  const rest = parts.slice(5).join(':');
  const separator = rest.search(/[/:]/);
  return { region, name: separator === -1 ? rest : rest.slice(separator + 1) };
}

/** `https://sqs.{region}.amazonaws.com/{account}/{queue}`. */
function fromQueueUrl(url: string): Target | undefined {
  const match = /^https?:\/\/sqs\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?\/\d+\/([^/?#]+)\/?$/i.exec(
    url,
  );
  return match ? { region: match[1]!.toLowerCase(), name: match[2] } : undefined;
}

/** The value as written, or null when part of it is only known at run time. */
function known(value: Arg | undefined): string | null | undefined {
  if (value === undefined || value === null) return value;
  return isUnknownResource(value) ? null : value;
}

function regionOf(options: Map<string, Arg>, context: CommandContext): string | null {
  const line = known(options.get('--region'));
  if (line !== undefined) return line === null ? null : line.toLowerCase();
  for (const name of ['AWS_REGION', 'AWS_DEFAULT_REGION']) {
    const value = known(variableOf(context.env, name));
    if (value === undefined || value === '') continue;
    return value === null ? null : value.toLowerCase();
  }
  return null;
}

function targetOf(options: Map<string, Arg>, context: CommandContext): Target {
  const region = regionOf(options, context);
  // The CLI reads the rest of the request from a file or a skeleton we do not see.
  if (options.has('--cli-input-json') || options.has('--cli-input-yaml'))
    return { region, name: null };
  for (const option of nameOptions) {
    if (!options.has(option)) continue;
    const value = known(options.get(option)) ?? null;
    if (value === null) return { region, name: null };
    const parsed = option === '--queue-url' ? fromQueueUrl(value) : fromArn(value);
    if (option === '--queue-url' && parsed === undefined) return { region, name: null };
    return parsed
      ? { region: parsed.region ?? region, name: parsed.name }
      : { region, name: value };
  }
  return { region, name: undefined };
}

/**
 * `aws://{service}/{region}/{name}` for a regional service, `aws://{service}/{name}` for a
 * global one. What the line leaves to the environment widens: no region is every region
 * (`aws://dynamodb`), no readable name is the whole region.
 */
function serviceResource(service: string, options: Map<string, Arg>, context: CommandContext) {
  const id = service.toLowerCase();
  const { region, name } = targetOf(options, context);
  const base = globalServices.has(id)
    ? `aws://${id}`
    : region === null
      ? undefined
      : `aws://${id}/${region}`;
  if (base === undefined || !/^[a-z0-9-]+$/.test(base.slice(base.lastIndexOf('/') + 1)))
    return `aws://${id}`;
  if (name === undefined || name === null) return base;
  const segments = name.replace(/^\/+/, '').split('/');
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..'))
    return base;
  return `${base}/${segments.join('/')}`;
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
  return [...resources, serviceResource(service, options, context)];
};
