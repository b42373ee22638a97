import { everything } from '../scope/canonical-resource.js';
import type { Extractor } from './command-context.js';
import { createFileExtractor, type FileProgramSpec } from './extract-files.js';
import { extractLn } from './extract-ln.js';
import { hasOption, parseOptions } from './parse-options.js';

/**
 * Programs whose operands are local files, each with the options that take a value. Each
 * program has its own list: one list shared by all of them made `cat -s FILE`, `ls -l DIR`
 * and `rm -rf DIR` read FILE and DIR as option values, so they reached nothing.
 */
const specs: Record<string, FileProgramSpec> = {
  cat: {},
  tac: { short: 's', long: ['separator'] },
  nl: {
    short: 'bdfhilnsvw',
    long: [
      'body-numbering',
      'section-delimiter',
      'footer-numbering',
      'header-numbering',
      'line-increment',
      'join-blank-lines',
      'number-format',
      'number-separator',
      'starting-line-number',
      'number-width',
    ],
  },
  less: {
    short: 'bhjkoOpPtTxyz#',
    long: ['log-file', 'LOG-FILE', 'lesskey-file', 'pattern', 'prompt', 'tag', 'tag-file'],
    fileOptions: ['-o', '-O', '-k', '--log-file', '--LOG-FILE', '--lesskey-file'],
  },
  more: { short: 'n', long: ['lines'] },
  wc: {},
  rm: {},
  rmdir: {},
  shred: { short: 'ns', long: ['iterations', 'size', 'random-source'] },
  stat: { short: 'c', long: ['format', 'printf'] },
  file: {
    short: 'mfFeP',
    long: ['magic-file', 'files-from', 'separator', 'exclude', 'parameter'],
    fileOptions: ['-m', '--magic-file'],
  },
  readlink: {},
  realpath: {},
  md5sum: {},
  sha1sum: {},
  sha256sum: {},
  sha512sum: {},
  xxd: { short: 'cglosn', long: ['cols', 'groupsize', 'len', 'seek', 'name'] },
  hexdump: { short: 'efns', fileOptions: ['-f'] },
  rev: {},
  zcat: {},
  gzip: { short: 'S', long: ['suffix'] },
  gunzip: { short: 'S', long: ['suffix'] },
  bzip2: {},
  bunzip2: {},
  xz: { short: 'SFCTM', long: ['suffix', 'format', 'check', 'threads', 'memlimit'] },
  unxz: { short: 'SFTM', long: ['suffix', 'format', 'threads', 'memlimit'] },
  zstd: { short: 'oD', long: ['output-dir-flat', 'output-dir-mirror'], fileOptions: ['-o', '-D'] },
  comm: { long: ['output-delimiter'] },
  cmp: { short: 'in', long: ['ignore-initial', 'bytes'] },
  diff: {
    short: 'CUIxXFLDS',
    long: [
      'context',
      'unified',
      'ignore-matching-lines',
      'exclude',
      'exclude-from',
      'show-function-line',
      'label',
      'ifdef',
      'starting-file',
      'from-file',
      'to-file',
      'line-format',
      'tabsize',
      'width',
      'horizon-lines',
      'color',
      'palette',
    ],
    fileOptions: ['-X', '--exclude-from', '--from-file', '--to-file'],
  },
  unzip: { short: 'dP', fileOptions: ['-d'] },
  zip: { short: 'btnPO', long: ['temp-path', 'out', 'suffixes', 'password'] },
  tee: {},
  touch: { short: 'dtr', long: ['date', 'reference'], fileOptions: ['-r', '--reference'] },
  mkdir: { short: 'm', long: ['mode'] },
  cp: {
    short: 'St',
    long: ['suffix', 'target-directory'],
    fileOptions: ['-t', '--target-directory'],
  },
  mv: {
    short: 'St',
    long: ['suffix', 'target-directory'],
    fileOptions: ['-t', '--target-directory'],
  },
  ls: {
    short: 'ITw',
    long: [
      'block-size',
      'format',
      'hide',
      'ignore',
      'indicator-style',
      'quoting-style',
      'sort',
      'tabsize',
      'time',
      'time-style',
      'width',
    ],
  },
  tree: { short: 'LPIoHT', long: ['charset', 'filelimit', 'timefmt', 'sort'], fileOptions: ['-o'] },
  du: {
    short: 'dBtX',
    long: ['max-depth', 'block-size', 'threshold', 'exclude-from', 'exclude', 'time-style'],
    fileOptions: ['-X', '--exclude-from'],
  },
  'source-highlight': {
    short: 'iosf',
    long: ['input', 'output', 'src-lang', 'out-format'],
    fileOptions: ['-i', '-o', '--input', '--output'],
  },
  bat: {
    short: 'lHrm',
    long: [
      'language',
      'highlight-line',
      'line-range',
      'map-syntax',
      'theme',
      'style',
      'tabs',
      'wrap',
      'terminal-width',
      'color',
      'italic-text',
      'decorations',
      'paging',
      'file-name',
      'diff-context',
    ],
  },
  fmt: { short: 'wpg', long: ['width', 'prefix', 'goal'] },
  fold: { short: 'w', long: ['width'] },
  expand: { short: 't', long: ['tabs'] },
  unexpand: { short: 't', long: ['tabs'] },
  iconv: {
    short: 'fto',
    long: ['from-code', 'to-code', 'output'],
    fileOptions: ['-o', '--output'],
  },
  strings: { short: 'ntesT', long: ['bytes', 'radix', 'encoding', 'target', 'output-separator'] },
  od: {
    short: 'AjNtS',
    long: ['address-radix', 'skip-bytes', 'read-bytes', 'format', 'strings', 'endian'],
  },
  base64: { short: 'w', long: ['wrap'] },
  sort: {
    short: 'ktoST',
    long: ['key', 'field-separator', 'output', 'buffer-size', 'temporary-directory', 'parallel'],
    fileOptions: ['-o', '--output', '-T', '--temporary-directory', '--random-source'],
  },
  uniq: { short: 'fsw', long: ['skip-fields', 'skip-chars', 'check-chars'] },
  cut: { short: 'bcdf', long: ['bytes', 'characters', 'delimiter', 'fields', 'output-delimiter'] },
  paste: { short: 'd', long: ['delimiters'] },
  split: {
    short: 'abClnt',
    long: ['suffix-length', 'additional-suffix', 'bytes', 'line-bytes', 'lines', 'number'],
  },
  truncate: { short: 'sr', long: ['size', 'reference'], fileOptions: ['-r', '--reference'] },
  patch: {
    short: 'pioBdDrFVzYg',
    long: ['strip', 'input', 'output', 'directory', 'reject-file', 'fuzz', 'suffix'],
    fileOptions: ['-i', '-o', '-d', '-r', '--input', '--output', '--directory', '--reject-file'],
  },
  lsof: { short: 'pucdgsSTkKmAD', long: [] },
};

// Options that read a list of file names from a file, or run a program: the reach is unknown.
const unknownReach = ['--files0-from', '--compress-program', '--filter', '--pager', '--pre'];

// Editors run commands given with `-c`, `+cmd`, `--cmd`, `-S`, `--eval`, … : any option at all.
const editors = ['vi', 'vim', 'nvim', 'view', 'nano', 'emacs'];

function failClosed(extract: Extractor): Extractor {
  return (args, context) => {
    if (hasOption(parseOptions(args), ...unknownReach)) return [everything];
    return extract(args, context);
  };
}

const editor: Extractor = (args, context) =>
  args.some((arg) => arg === null || arg.startsWith('-') || arg.startsWith('+'))
    ? [everything]
    : args.map((arg) => context.file(arg));

/** The extractors of the plain file programs, by name. */
export const filePrograms: readonly [string, Extractor][] = [
  ...Object.entries(specs).map(([name, spec]): [string, Extractor] => [
    name,
    failClosed(createFileExtractor(spec)),
  ]),
  ...editors.map((name): [string, Extractor] => [name, editor]),
  ['ln', failClosed(extractLn)],
];
