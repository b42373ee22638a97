import { everything } from '../scope/canonical-resource.js';
import type { Extractor } from './command-context.js';
import { hasOption, type OptionSpec, optionValues, parseOptions } from './parse-options.js';
import type { Arg } from './shell-word.js';

export interface FileProgramSpec extends OptionSpec {
  /** Options whose values are file paths. */
  fileOptions?: readonly string[] | undefined;
  /** The first positional is not a file (a pattern, script, mode or owner)… */
  skipFirst?: boolean | undefined;
  /** …unless one of these options supplied it. */
  unlessOptions?: readonly string[] | undefined;
}

/** Programs whose operands are local files (cat, grep, cp, …). Without operands: stdin. */
export function createFileExtractor(spec: FileProgramSpec = {}): Extractor {
  return (args, context) => {
    const parsed = parseOptions(args, spec);
    let operands: Arg[] = parsed.positionals;
    if (spec.skipFirst && !hasOption(parsed, ...(spec.unlessOptions ?? [])))
      operands = operands.slice(1);
    const files = [...operands, ...optionValues(parsed, ...(spec.fileOptions ?? []))];
    return files.filter((file) => file !== '-').map((file) => context.file(file));
  };
}

export const extractFind: Extractor = (args, context) => {
  let index = 0;
  while (index < args.length && /^-[HLP]$/.test(args[index] ?? '')) index++;
  const roots: Arg[] = [];
  while (index < args.length) {
    const arg = args[index] ?? null;
    if (arg !== null && (arg.startsWith('-') || arg === '(' || arg === '!')) break;
    roots.push(arg);
    index++;
  }
  if (roots.length === 0) roots.push('.');
  const resources = roots.map((root) => context.file(root));
  const expression = args.slice(index);
  for (let at = 0; at < expression.length; at++) {
    const primary = expression[at];
    if (
      primary === '-fprint' ||
      primary === '-fprint0' ||
      primary === '-fprintf' ||
      primary === '-fls'
    ) {
      resources.push(context.file(expression[at + 1] ?? null));
    }
    if (
      primary === '-exec' ||
      primary === '-execdir' ||
      primary === '-ok' ||
      primary === '-okdir'
    ) {
      const end = expression.findIndex((arg, i) => i > at && (arg === ';' || arg === '+'));
      if (end === -1) return [everything];
      // `{}` is a path below one of the roots: the roots already cover it.
      const command = expression
        .slice(at + 1, end)
        .map((arg) => (arg === '{}' ? (roots[0] ?? null) : arg));
      resources.push(...context.run(command));
      at = end;
    }
  }
  return resources;
};

export const extractDd: Extractor = (args, context) =>
  args
    .filter((arg) => arg === null || arg.startsWith('if=') || arg.startsWith('of='))
    .map((arg) => context.file(arg === null ? null : arg.slice(3)));

/** jq and yq: `--arg name value` takes two values; `--slurpfile name file` reads a file. */
export const extractJq: Extractor = (args, context) => {
  const rest: Arg[] = [];
  const files: Arg[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (arg === '--arg' || arg === '--argjson') index += 2;
    else if (arg === '--slurpfile' || arg === '--rawfile') {
      files.push(args[index + 2] ?? null);
      index += 2;
    } else if (arg === '-f' || arg === '--from-file') {
      files.push(args[++index] ?? null);
      rest.unshift('.'); // the filter came from the file
    } else rest.push(arg ?? null);
  }
  const parsed = parseOptions(rest, { long: ['indent', 'tab'] });
  return [...parsed.positionals.slice(1), ...files].map((file) => context.file(file));
};

export const extractTar: Extractor = (args, context) => {
  const [first, ...others] = args;
  // Old style `tar czf archive.tgz dir`: a bare letter cluster first.
  const normalised =
    first !== null && first !== undefined && /^[a-zA-Z]+$/.test(first)
      ? [`-${first}`, ...others]
      : args;
  const parsed = parseOptions(normalised, {
    short: 'fCbTXKNgVIF',
    long: [
      'file',
      'directory',
      'files-from',
      'exclude-from',
      'exclude',
      'transform',
      'use-compress-program',
      'to-command',
      'checkpoint-action',
      'info-script',
      'new-volume-script',
      'rsh-command',
    ],
  });
  if (
    hasOption(
      parsed,
      '-I',
      '--use-compress-program',
      '--to-command',
      '--checkpoint-action',
      '--info-script',
      '-F',
      '--new-volume-script',
      '--rsh-command',
    )
  )
    return [everything];
  const files = [
    ...parsed.positionals,
    ...optionValues(
      parsed,
      '-f',
      '--file',
      '-C',
      '--directory',
      '-T',
      '--files-from',
      '-X',
      '--exclude-from',
    ),
  ];
  return files.filter((file) => file !== '-').map((file) => context.file(file));
};
