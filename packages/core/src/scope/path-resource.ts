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
    // `~user/...`: another user's home, wherever the password database puts it (`~root`
    // is `/root`): unknown.
    return everything;
  }
  const cwd = options.cwd ?? process.cwd();
  return throughProc(posix.resolve('/', cwd, input));
}

/**
 * `/proc/self/root` is a link to this process's root directory, so a path below it is the
 * path below `/`; another process's root, and any process's `cwd`, `fd/{n}` and
 * `map_files`, are links to places we cannot see: unknown.
 */
function throughProc(path: string): string {
  const link =
    /^\/proc\/(self|thread-self|\d+)(?:\/task\/\d+)?\/(root|cwd|fd|map_files)(?=\/|$)(.*)$/.exec(
      path,
    );
  if (link === null) return `file://${path}`;
  // Another process may have another root (a chroot, a container).
  if (link[2] !== 'root' || /^\d/.test(link[1] ?? '')) return everything;
  return throughProc(posix.resolve('/', `.${link[3] ?? ''}`));
}
