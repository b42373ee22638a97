import type { Extractor } from './command-context.js';
import { extractAwk, extractSed } from './extract-awk-sed.js';
import { extractAws } from './extract-aws.js';
import {
  createFileExtractor,
  extractDd,
  extractFind,
  extractJq,
  extractTar,
} from './extract-files.js';
import { extractGh } from './extract-gh.js';
import { extractGit } from './extract-git.js';
import { createHttpieExtractor, extractCurl, extractWget } from './extract-http-clients.js';
import { extractKubectl } from './extract-kubectl.js';
import { createPostgresExtractor } from './extract-psql.js';
import { extractRsync, extractScp, extractSsh } from './extract-ssh.js';
import {
  createWrapper,
  extractEnv,
  extractShell,
  extractSu,
  extractSudo,
  extractTimeout,
  extractWatch,
  extractXargs,
} from './extract-wrappers.js';
import { filePrograms } from './file-programs.js';

const none: Extractor = () => [];

/** Builtins and tools that reach no resource (they print, compute or wait). */
const harmless = [
  'echo',
  'printf',
  'true',
  'false',
  ':',
  'pwd',
  'exit',
  'return',
  'set',
  'shift',
  'unset',
  'export',
  'sleep',
  'date',
  'whoami',
  'id',
  'hostname',
  'uname',
  'seq',
  'yes',
  'basename',
  'dirname',
  'expr',
  'wait',
  'read',
  'which',
  'type',
  'hash',
  'clear',
  'tput',
  'mktemp',
  'umask',
  'test',
  '[',
  'history',
  'jobs',
  'printenv',
  'nproc',
  'uptime',
  'tr',
  'column',
  'bc',
  'getopts',
  'local',
  'declare',
  'readonly',
  'shopt',
  'ulimit',
  'times',
  'break',
  'continue',
  'fg',
  'bg',
  'disown',
  'df',
  'free',
  'groups',
  'locale',
  'tty',
  'arch',
  'cal',
  'dirs',
];

const table = new Map<string, Extractor>([
  ...harmless.map((name): [string, Extractor] => [name, none]),
  ...filePrograms,
  ['head', createFileExtractor({ short: 'nc', long: ['lines', 'bytes'] })],
  [
    'tail',
    createFileExtractor({ short: 'ncs', long: ['lines', 'bytes', 'sleep-interval', 'pid'] }),
  ],
  ['chmod', createFileExtractor({ skipFirst: true, unlessOptions: ['--reference'] })],
  ['chown', createFileExtractor({ skipFirst: true, unlessOptions: ['--reference'] })],
  ['chgrp', createFileExtractor({ skipFirst: true, unlessOptions: ['--reference'] })],
  ...['grep', 'egrep', 'fgrep', 'rg', 'ag', 'ack', 'zgrep'].map((name): [string, Extractor] => [
    name,
    createFileExtractor({
      short: 'efmABCdDgtT',
      long: [
        'regexp',
        'file',
        'max-count',
        'after-context',
        'before-context',
        'context',
        'include',
        'exclude',
        'exclude-dir',
        'glob',
        'type',
        'type-not',
        'devices',
        'directories',
        'label',
        'color',
        'colour',
      ],
      skipFirst: true,
      unlessOptions: ['-e', '--regexp', '-f', '--file'],
      fileOptions: ['-f', '--file'],
    }),
  ]),
  ['sed', extractSed],
  ...['awk', 'gawk', 'mawk'].map((name): [string, Extractor] => [name, extractAwk]),
  ['jq', extractJq],
  ['yq', extractJq],
  ['find', extractFind],
  ['dd', extractDd],
  ['tar', extractTar],
  ['git', extractGit],
  ['gh', extractGh],
  ['curl', extractCurl],
  ['wget', extractWget],
  ['http', createHttpieExtractor('http')],
  ['https', createHttpieExtractor('https')],
  ['xh', createHttpieExtractor('http')],
  ['xhs', createHttpieExtractor('https')],
  ['ssh', extractSsh],
  ['sftp', extractScp],
  ['scp', extractScp],
  ['rsync', extractRsync],
  ['aws', extractAws],
  ['kubectl', extractKubectl],
  ['psql', createPostgresExtractor('psql')],
  ['pgcli', createPostgresExtractor('psql')],
  ['pg_dump', createPostgresExtractor('pg_dump')],
  ['pg_dumpall', createPostgresExtractor('pg_dump')],
  ['pg_restore', createPostgresExtractor('pg_restore')],
  ['env', extractEnv],
  ['sudo', extractSudo],
  ['doas', createWrapper('uC')],
  ['nohup', createWrapper('')],
  ['time', createWrapper('fo', ['format', 'output'])],
  ['nice', createWrapper('n', ['adjustment'])],
  ['ionice', createWrapper('cnp', ['class', 'classdata', 'pid'])],
  ['stdbuf', createWrapper('ioe', ['input', 'output', 'error'])],
  ['command', (args, context) => (args[0]?.startsWith('-') ? [] : context.run(args))],
  ['builtin', (args, context) => context.run(args)],
  ['exec', createWrapper('a')],
  ['setsid', createWrapper('')],
  ['chronic', createWrapper('')],
  ['unbuffer', createWrapper('')],
  ['timeout', extractTimeout],
  ['xargs', extractXargs],
  ['watch', extractWatch],
  ['su', extractSu],
  ...['bash', 'sh', 'zsh', 'dash', 'ksh', 'ash', 'fish'].map((name): [string, Extractor] => [
    name,
    extractShell,
  ]),
]);

// Standard install locations; a program anywhere else may be anything.
const systemDirectory = /^\/(usr\/(local\/)?)?s?bin\//;

/** The extractor for a program name or path; undefined for a program we do not know. */
export function findExtractor(program: string): Extractor | undefined {
  if (program.includes('/')) {
    if (!systemDirectory.test(program)) return undefined;
    return table.get(program.slice(program.lastIndexOf('/') + 1));
  }
  return table.get(program);
}
