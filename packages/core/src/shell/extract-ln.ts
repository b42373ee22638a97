import { posix } from 'node:path';
import { everything } from '../scope/canonical-resource.js';
import type { Extractor } from './command-context.js';
import { createFileExtractor, type FileProgramSpec } from './extract-files.js';
import { hasOption, optionValue, parseOptions } from './parse-options.js';
import type { Arg } from './shell-word.js';

const spec: FileProgramSpec = {
  short: 'St',
  long: ['suffix', 'target-directory'],
  fileOptions: ['-t', '--target-directory'],
};
const operandsOf = createFileExtractor(spec);

/**
 * `ln` reaches its links and its targets: a link is a new name for its target, and
 * `pathResource` follows no links. A relative symlink target is resolved against the
 * link's directory, not cwd, so it is read against every place the link may land too.
 */
export const extractLn: Extractor = (args, context) => {
  const resources = operandsOf(args, context);
  const parsed = parseOptions(args, spec);
  if (!hasOption(parsed, '-s', '--symbolic')) return resources;
  const directory = optionValue(parsed, '-t', '--target-directory');
  const operands = parsed.positionals;
  const last = operands.length >= 2 ? operands[operands.length - 1] : undefined;
  const targets = directory === undefined && last !== undefined ? operands.slice(0, -1) : operands;
  // `ln -s t link`: the link is `link`, or lands inside it when it is a directory.
  const linkDirectories: Arg[] =
    directory !== undefined
      ? [directory]
      : last === undefined
        ? []
        : [last, last === null ? null : posix.dirname(last)];
  for (const target of targets) {
    if (target === null) return [everything];
    if (target.startsWith('/') || target.startsWith('~')) continue;
    for (const linkDirectory of linkDirectories) {
      resources.push(
        context.file(linkDirectory === null ? null : posix.join(linkDirectory, target)),
      );
    }
  }
  return resources;
};
