import {
  everything,
  joinResource,
  lowerSegment,
  opaqueResource,
  splitPath,
  stripGitSuffix,
} from './canonical-resource.js';
import { codeHostResource } from './code-host-resource.js';
import { postgresResource, s3Resource, sshResource } from './infra-resource.js';
import { pathResource } from './path-resource.js';
import { s3WebResource } from './s3-web-resource.js';

const webSchemes = new Set(['http', 'https', 'ws', 'wss']);
const sshSchemes = new Set(['ssh', 'git', 'git+ssh', 'ssh+git', 'sftp', 'scp', 'rsync']);

// `[user@]host:path` with no scheme: the scp-like syntax of git and scp.
const scpLike = /^(?:([^@/\s:]+)@)?([^@/\s:]+):(?!\/\/)(.*)$/;

/**
 * The canonical resource of a URL (see canonical-resource.ts for the scheme). Accepts web,
 * SSH, scp-like (`git@github.com:o/r.git`), `s3://`, `postgres://`, `k8s://`, `file://`
 * and scheme-less `host/path` forms. What cannot be understood reaches `*`.
 */
export function urlResource(url: string): string {
  const input = url.trim();
  if (input === '' || input === everything) return everything;
  if (/^file:/i.test(input)) return fileUrlResource(input);
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(input)?.[1]?.toLowerCase();
  if (scheme !== undefined) return schemeResource(scheme, input);
  const scp = scpLike.exec(input);
  if (scp !== null) {
    const [, user, host = '', path = ''] = scp;
    // `host:8080/x` is a web address without a scheme; `payment:p-42` is opaque.
    if (/^\d+(\/|$)/.test(path) && (host.includes('.') || host === 'localhost')) {
      return webResource(`https://${input}`);
    }
    if (user !== undefined || host.includes('.') || host === 'localhost') {
      return sshPathResource(host, path);
    }
    return opaqueResource(input);
  }
  if (/^[a-z0-9-]+(\.[a-z0-9-]+)+\.?(:\d+)?([/?#]|$)/i.test(input)) {
    return webResource(`https://${input}`);
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(input)) return opaqueResource(input);
  return everything;
}

function schemeResource(scheme: string, input: string): string {
  if (webSchemes.has(scheme)) return webResource(input);
  if (scheme === 's3') {
    // By hand: the URL parser would resolve `..`, which S3 keeps as part of a literal key.
    const [bucket = '', ...key] = input.slice('s3://'.length).split(/[?#]/)[0]!.split('/');
    return s3Resource(bucket, decodeKey(key.join('/')));
  }
  const url = parse(input);
  if (url === undefined) return everything;
  if (sshSchemes.has(scheme)) return sshPathResource(url.hostname, url.pathname);
  if (scheme === 'postgres' || scheme === 'postgresql') {
    return postgresResource({
      host: decodeKey(url.hostname),
      port: url.port || undefined,
      database: splitPath(url.pathname)[0],
    });
  }
  if (scheme === 'k8s') {
    return joinResource(`k8s://${url.hostname}`, url.pathname.split('/').filter(Boolean));
  }
  const host = url.host.toLowerCase().replace(/\.$/, '');
  return joinResource(`${scheme}://${host}`, splitPath(url.pathname));
}

function webResource(input: string): string {
  // Collapse duplicate slashes before the URL parser resolves dot segments against them.
  const collapsed = input.replace(
    /^([a-z][a-z0-9+.-]*:\/\/[^/?#\\]*)([^?#]*)/i,
    (_, authority: string, path: string) => authority + path.replace(/[/\\]{2,}/g, '/'),
  );
  const url = parse(collapsed);
  if (url === undefined || url.hostname === '') return everything;
  const host = ipv4Mapped(url.hostname.replace(/\.$/, ''));
  const segments = splitPath(url.pathname);
  const s3 = s3WebResource(host, rawPath(input));
  if (s3 !== undefined) return s3;
  const port = url.port === '' || url.port === '443' ? '' : `:${url.port}`;
  if (port === '') {
    const codeHost = codeHostResource(host, segments);
    if (codeHost !== undefined) return codeHost;
  }
  const last = segments.pop();
  if (last !== undefined) segments.push(stripGitSuffix(last));
  return joinResource(
    `https://${host}${port}`,
    segments.filter((s) => s !== ''),
  );
}

/**
 * A `file:` URL names a local path the way curl and fetch read it: percent-escapes decoded
 * (`%70rod.env` is `prod.env`), `localhost` as the host. Another host is not a local file.
 */
function fileUrlResource(input: string): string {
  const url = parse(input);
  if (url === undefined || url.hostname !== '') return everything;
  return pathResource(decodeKey(url.pathname));
}

/** The path of a URL as written: dot segments and escapes untouched. */
function rawPath(input: string): string {
  return input.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#\\]*/i, '');
}

/** Git over SSH reaches a code host's repository; any other SSH target is its host. */
function sshPathResource(host: string, path: string): string {
  const name = host.toLowerCase().replace(/\.$/, '');
  const codeHost = codeHostResource(name, splitPath(path.replace(/^\/?~/, '')));
  if (codeHost !== undefined) return codeHost;
  return sshResource(lowerSegment(name));
}

/**
 * An IPv4 address written as IPv6 (`[::ffff:10.0.0.5]`, which the URL parser writes
 * `[::ffff:a00:5]`) is that IPv4 address. Decimal, hex and octal IPv4 forms are already
 * dotted decimal after the URL parser.
 */
function ipv4Mapped(host: string): string {
  const mapped = /^\[(?:0{0,4}:){0,5}ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/i.exec(host);
  if (mapped === null) return host;
  const high = Number.parseInt(mapped[1] ?? '0', 16);
  const low = Number.parseInt(mapped[2] ?? '0', 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

function parse(input: string): URL | undefined {
  try {
    return new URL(input);
  } catch {
    return undefined;
  }
}

function decodeKey(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
