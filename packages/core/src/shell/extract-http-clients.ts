import { everything } from '../scope/canonical-resource.js';
import type { CommandContext, Extractor } from './command-context.js';
import { hasOption, optionValues, parseOptions } from './parse-options.js';
import type { Arg } from './shell-word.js';

const curlValueLong = [
  'data',
  'data-raw',
  'data-binary',
  'data-urlencode',
  'data-ascii',
  'json',
  'header',
  'output',
  'user-agent',
  'user',
  'proxy',
  'request',
  'url',
  'cookie',
  'cookie-jar',
  'config',
  'upload-file',
  'form',
  'form-string',
  'referer',
  'max-time',
  'connect-timeout',
  'retry',
  'retry-delay',
  'retry-max-time',
  'write-out',
  'cacert',
  'capath',
  'cert',
  'key',
  'resolve',
  'connect-to',
  'output-dir',
  'dump-header',
  'range',
  'continue-at',
  'proxy-user',
  'oauth2-bearer',
  'aws-sigv4',
  'unix-socket',
  'limit-rate',
  'max-filesize',
  'interface',
  'local-port',
  'trace',
  'trace-ascii',
  'stderr',
  'netrc-file',
  'variable',
  'time-cond',
  'preproxy',
  'socks5',
  'socks5-hostname',
  'quote',
  'mail-from',
  'mail-rcpt',
  'keepalive-time',
  'pass',
  'ciphers',
  'tls-max',
  'etag-save',
  'etag-compare',
  'hsts',
  'alt-svc',
  'proto',
  'proto-default',
  'proto-redir',
  'max-redirs',
  'dns-servers',
  'login-options',
  'ftp-port',
  'engine',
  'cert-type',
  'key-type',
  'rate',
  'expect100-timeout',
];

/** `@file` and `<file` values read local files; `@-` is stdin. */
function attachedFiles(values: readonly Arg[], context: CommandContext): string[] {
  const files: string[] = [];
  for (const value of values) {
    if (value === null) continue;
    const match = /(?:^|=)[@<]([^;]+)/.exec(value);
    if (match?.[1] !== undefined && match[1] !== '-') files.push(context.file(match[1]));
  }
  return files;
}

function writtenFiles(values: readonly Arg[], context: CommandContext): string[] {
  return values.filter((value) => value !== '-').map((value) => context.file(value));
}

export const extractCurl: Extractor = (args, context) => {
  const parsed = parseOptions(args, { short: 'AbcCdDeEFHKmoPQrTuUwxXyYzt', long: curlValueLong });
  if (hasOption(parsed, '-K', '--config')) return [everything];
  const urls = [...parsed.positionals, ...optionValues(parsed, '--url')];
  const cookies = optionValues(parsed, '-b', '--cookie').filter(
    (value) => value === null || !value.includes('='),
  );
  return [
    ...urls.map((url) => context.url(url)),
    ...writtenFiles(
      optionValues(
        parsed,
        '-o',
        '--output',
        '-D',
        '--dump-header',
        '-c',
        '--cookie-jar',
        '--trace',
        '--trace-ascii',
        '--stderr',
        '--etag-save',
        '--output-dir',
        '--hsts',
        '--alt-svc',
        '-T',
        '--upload-file',
        '--netrc-file',
      ),
      context,
    ),
    ...writtenFiles(cookies, context),
    ...attachedFiles(
      optionValues(
        parsed,
        '-d',
        '--data',
        '--data-binary',
        '--data-urlencode',
        '--data-ascii',
        '--json',
        '-F',
        '--form',
      ),
      context,
    ),
  ];
};

export const extractWget: Extractor = (args, context) => {
  const parsed = parseOptions(args, {
    short: 'OoaPiBtTwQUelARDIX',
    long: [
      'output-document',
      'output-file',
      'append-output',
      'directory-prefix',
      'input-file',
      'base',
      'tries',
      'timeout',
      'wait',
      'quota',
      'user-agent',
      'execute',
      'level',
      'accept',
      'reject',
      'domains',
      'include-directories',
      'exclude-directories',
      'header',
      'post-data',
      'post-file',
      'body-data',
      'body-file',
      'method',
      'user',
      'password',
      'http-user',
      'http-password',
      'load-cookies',
      'save-cookies',
      'ca-certificate',
      'certificate',
      'private-key',
      'referer',
      'bind-address',
      'limit-rate',
      'dns-timeout',
      'connect-timeout',
      'read-timeout',
      'progress',
      'config',
      'warc-file',
      'rejected-log',
    ],
  });
  // URLs read from a file or a config we cannot see: everything.
  if (hasOption(parsed, '-i', '--input-file', '--config')) return [everything];
  return [
    ...parsed.positionals.map((url) => context.url(url)),
    ...writtenFiles(
      optionValues(
        parsed,
        '-O',
        '--output-document',
        '-o',
        '--output-file',
        '-a',
        '--append-output',
        '-P',
        '--directory-prefix',
        '--post-file',
        '--body-file',
        '--load-cookies',
        '--save-cookies',
      ),
      context,
    ),
  ];
};

/** HTTPie (`http`, `https`) and xh: `[METHOD] URL [ITEM…]`; `field@file` items upload files. */
export function createHttpieExtractor(scheme: 'http' | 'https'): Extractor {
  return (args, context) => {
    const parsed = parseOptions(args, {
      short: 'aAops',
      long: [
        'auth',
        'auth-type',
        'output',
        'session',
        'session-read-only',
        'verify',
        'cert',
        'cert-key',
        'timeout',
        'proxy',
        'max-redirects',
        'boundary',
        'format-options',
        'print',
        'pretty',
        'style',
        'ssl',
        'ciphers',
        'default-scheme',
        'raw',
      ],
    });
    const positionals = [...parsed.positionals];
    if (positionals.length > 1 && /^[A-Za-z]+$/.test(positionals[0] ?? '')) positionals.shift();
    const [url, ...items] = positionals;
    if (url === undefined) return [];
    const address = httpieAddress(url, scheme);
    const uploads = items
      .map((item) => (item === null ? null : (/^[^=:@]*(?::=@|=@|@)(.+)$/.exec(item)?.[1] ?? '')))
      .filter((file) => file !== '')
      .map((file) => context.file(file));
    return [
      context.url(address),
      ...uploads,
      ...writtenFiles(optionValues(parsed, '-o', '--output'), context),
    ];
  };
}

/** `:3000/x` and `:/x` are localhost shorthands; a bare host gets the program's scheme. */
function httpieAddress(url: Arg, scheme: string): Arg {
  if (url === null || /^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return url;
  if (!url.startsWith(':')) return `${scheme}://${url}`;
  const rest = url.slice(1);
  return `${scheme}://localhost${/^\d/.test(rest) ? ':' : rest.startsWith('/') ? '' : '/'}${rest}`;
}
