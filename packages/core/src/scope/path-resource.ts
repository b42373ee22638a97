import { posix } from 'node:path';
import { everything } from './canonical-resource.js';

export interface PathResourceOptions {
  /** Directory relative paths are resolved against. Default `process.cwd()`. */
  cwd?: string | undefined;
  /** What `~` expands to. Default the `HOME` environment variable. */
  home?: string | undefined;
}

/**
 * `file:///absolute/path` with `.`, `..` and duplicate slashes resolved. Symlinks are not
 * followed (no file system access). A `file://` input is taken as a raw path, so the
 * function is idempotent.
 */
export function pathResource(path: string, options: PathResourceOptions = {}): string {
  let input = path.trim();
  if (input === '' || input === everything) return everything;
  if (input.toLowerCase().startsWith('file://')) input = input.slice('file://'.length) || '/';
  if (input.includes('\0')) return everything;
  if (input === '~' || input.startsWith('~/')) {
    const home = options.home ?? process.env.HOME;
    if (home === undefined || home === '') return everything;
    input = home + input.slice(1);
  } else if (input.startsWith('~')) {
    // `~user/...`: another user's home, by the usual layout.
    input = `/home/${input.slice(1)}`;
  }
  const cwd = options.cwd ?? process.cwd();
  return `file://${posix.resolve('/', cwd, input)}`;
}
