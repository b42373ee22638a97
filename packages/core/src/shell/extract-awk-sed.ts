import { everything } from '../scope/canonical-resource.js';
import type { Extractor } from './command-context.js';
import { createFileExtractor } from './extract-files.js';
import { hasOption, optionValues, parseOptions } from './parse-options.js';
import { awkReachesOut, sedReachesOut } from './script-reach.js';

const sedSpec = { short: 'efl', long: ['expression', 'file', 'line-length'] };
const sedFiles = createFileExtractor({
  ...sedSpec,
  skipFirst: true,
  unlessOptions: ['-e', '--expression'],
});

/** sed reads its operands; a script that runs a command or names a file reaches anything. */
export const extractSed: Extractor = (args, context) => {
  const parsed = parseOptions(args, sedSpec);
  // A script file could say anything.
  if (hasOption(parsed, '-f', '--file')) return [everything];
  const expressions = optionValues(parsed, '-e', '--expression');
  const scripts = expressions.length > 0 ? expressions : parsed.positionals.slice(0, 1);
  if (scripts.some((script) => script === null || sedReachesOut(script))) return [everything];
  return sedFiles(args, context);
};

const awkSpec = {
  short: 'FfvilEe',
  long: ['field-separator', 'file', 'assign', 'include', 'load', 'exec', 'source'],
};
const awkFiles = createFileExtractor({
  ...awkSpec,
  skipFirst: true,
  unlessOptions: ['-e', '--source'],
});

/** awk (gawk, mawk) reads its operands; `system()`, `getline`, pipes and `print >` reach anything. */
export const extractAwk: Extractor = (args, context) => {
  const parsed = parseOptions(args, awkSpec);
  const programFiles = ['-f', '--file', '-i', '--include', '-l', '--load', '-E', '--exec'];
  if (hasOption(parsed, ...programFiles)) return [everything];
  const sources = optionValues(parsed, '-e', '--source');
  const programs = sources.length > 0 ? sources : parsed.positionals.slice(0, 1);
  if (programs.some((program) => program === null || awkReachesOut(program))) return [everything];
  return awkFiles(args, context);
};
