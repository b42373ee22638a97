import { everything } from './canonical-resource.js';
import { s3Resource } from './infra-resource.js';

// `s3`, `s3-{region}`, `s3.{region}`, `s3.dualstack.{region}`, `s3-website-{region}`, …
// under amazonaws.com (or .com.cn). A bucket may contain dots, so it is matched greedily.
const s3Host =
  /^(?:(?<bucket>[a-z0-9][a-z0-9.-]*)\.)?(?<endpoint>s3(?:-[a-z0-9-]+)?)(?:\.[a-z0-9-]+)*?\.amazonaws\.com(?:\.cn)?$/;

/**
 * The S3 resource of an HTTPS URL on one of S3's endpoints, or undefined for any other host.
 * Virtual-hosted (`{bucket}.s3.{region}.amazonaws.com/{key}`) and path-style
 * (`s3.{region}.amazonaws.com/{bucket}/{key}`) forms both map to `s3://bucket/key`; an
 * access point or Object Lambda host may front any bucket, so it reaches everything.
 * `rawPath` is the path as written (before any dot-segment resolution).
 */
export function s3WebResource(host: string, rawPath: string): string | undefined {
  const match = s3Host.exec(host.toLowerCase());
  if (match?.groups === undefined) return undefined;
  const { bucket, endpoint = '' } = match.groups;
  if (/^s3-(accesspoint|object-lambda)/.test(endpoint)) return everything;
  const segments = rawPath.split(/[?#]/)[0]!.replace(/\\/g, '/').split('/').map(decodeSegment);
  if (segments[0] === '') segments.shift();
  if (bucket !== undefined) return s3Resource(bucket, segments.join('/'));
  const [first = '', ...key] = segments;
  // Path style: the bucket is a path segment, which a dot segment could change.
  if (segments.some((s) => s === '.' || s === '..')) return everything;
  return first === '' ? 'aws://s3' : s3Resource(first, key.join('/'));
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
