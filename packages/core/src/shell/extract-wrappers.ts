import { everything } from '../scope/canonical-resource.js';
import type { CommandContext, Extractor } from './command-context.js';
import { hasOption, optionValue, parseOptions } from './parse-options.js';
import type { Arg } from './shell-word.js';

const assignment = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** `VAR=value` operands before the command (env, sudo): shell-visible as prefixes. */
function withAssignments(args: readonly Arg[], context: CommandContext): string[] {
  let index = 0;
  const env: Arg[] = [];
  while (index < args.length && assignment.test(args[index] ?? '')) env.push(args[index++] ?? null);
  const command = args.slice(index);
  if (command.length === 0) return [];
  // Re-run as `VAR=value cmd …` so the nested extractor sees the environment.
  const script = [...env, ...command];
  if (script.every((arg) => arg !== null)) return context.script(script.map(quote).join(' '));
  return env.length === 0 ? context.run(command) : [everything];
}

function quote(arg: Arg): string {
  const text = arg ?? '';
  return `'${text.replaceAll("'", "'\\''")}'`.replace(/^'([A-Za-z_][A-Za-z0-9_]*)=/, "$1='");
}

export const extractEnv: Extractor = (args, context) => {
  const parsed = parseOptions(args, {
    short: 'uCS',
    long: ['unset', 'chdir', 'split-string'],
    stopAtPositional: true,
  });
  if (hasOption(parsed, '-C', '--chdir', '-S', '--split-string')) return [everything];
  return withAssignments(parsed.rest, context);
};

export const extractSudo: Extractor = (args, context) => {
  const parsed = parseOptions(args, {
    short: 'ughpCDrtTU',
    long: [
      'user',
      'group',
      'host',
      'prompt',
      'close-from',
      'chdir',
      'role',
      'type',
      'other-user',
      'command-timeout',
    ],
    stopAtPositional: true,
  });
  if (hasOption(parsed, '-D', '--chdir')) return [everything];
  if (hasOption(parsed, '-e', '--edit')) return parsed.rest.map((path) => context.file(path));
  if (parsed.rest.length === 0) {
    // `sudo -i` / `sudo -s` alone open an interactive shell.
    return hasOption(parsed, '-i', '--login', '-s', '--shell') ? [everything] : [];
  }
  if (hasOption(parsed, '-s', '--shell', '-i', '--login')) {
    return parsed.rest.every((arg) => arg !== null)
      ? context.script(parsed.rest.join(' '))
      : [everything];
  }
  return withAssignments(parsed.rest, context);
};

/** Wrappers that run their operands as a command after their own options. */
export function createWrapper(
  short: string,
  long: readonly string[] = [],
  operands = 0,
): Extractor {
  return (args, context) => {
    const parsed = parseOptions(args, { short, long, stopAtPositional: true });
    const command = parsed.rest.slice(operands);
    return command.length === 0 ? [] : context.run(command);
  };
}

export const extractXargs: Extractor = (args, context) => {
  const parsed = parseOptions(args, {
    short: 'IinPLdEsa',
    long: [
      'replace',
      'max-args',
      'max-procs',
      'max-lines',
      'delimiter',
      'eof',
      'max-chars',
      'arg-file',
    ],
    stopAtPositional: true,
  });
  const replace = optionValue(parsed, '-I', '--replace', '-i');
  const files = [optionValue(parsed, '-a', '--arg-file')].filter((f) => f !== undefined);
  const command = parsed.rest.length === 0 ? ['echo'] : parsed.rest;
  // The items come from stdin: unknown arguments, in place of the replace string or appended.
  const argv =
    replace !== undefined && replace !== null
      ? command.map((arg) => (arg?.includes(replace) ? null : arg))
      : [...command, null];
  return [...files.map((file) => context.file(file)), ...context.run(argv)];
};

/** `bash -c 'script'` and friends. A script file or stdin is not known: everything. */
export const extractShell: Extractor = (args, context) => {
  let command = false;
  let index = 0;
  for (; index < args.length; index++) {
    const arg = args[index];
    if (arg === null || arg === undefined) return [everything];
    if (arg === '--' || arg === '-') {
      index++;
      break;
    }
    if (arg === '-o' || arg === '+o' || arg === '-O' || arg === '+O') index++;
    else if (arg.startsWith('--')) continue;
    else if (/^[-+][a-zA-Z]+$/.test(arg)) command ||= arg.startsWith('-') && arg.includes('c');
    else break;
  }
  if (!command) return [everything];
  return context.script(args[index] ?? null);
};

export const extractSu: Extractor = (args, context) => {
  const parsed = parseOptions(args, {
    short: 'cgGsw',
    long: ['command', 'group', 'shell', 'whitelist-environment'],
  });
  const command = optionValue(parsed, '-c', '--command');
  return command === undefined ? [everything] : context.script(command);
};

export const extractWatch: Extractor = (args, context) => {
  const parsed = parseOptions(args, {
    short: 'nq',
    long: ['interval', 'equexit'],
    stopAtPositional: true,
  });
  if (parsed.rest.length === 0) return [];
  if (hasOption(parsed, '-x', '--exec')) return context.run(parsed.rest);
  return parsed.rest.every((arg) => arg !== null)
    ? context.script(parsed.rest.join(' '))
    : [everything];
};

export const extractTimeout: Extractor = createWrapper('sk', ['signal', 'kill-after'], 1);
