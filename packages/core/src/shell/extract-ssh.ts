import { everything } from '../scope/canonical-resource.js';
import { sshResource } from '../scope/infra-resource.js';
import { urlResource } from '../scope/url-resource.js';
import type { CommandContext, Extractor } from './command-context.js';
import { optionValues, type ParsedOptions, parseOptions } from './parse-options.js';
import type { Arg } from './shell-word.js';

/** `-o ProxyCommand=…` and friends run a local command. */
function runsLocalCommand(parsed: ParsedOptions): boolean {
  return optionValues(parsed, '-o').some(
    (option) =>
      option === null ||
      /^\s*(proxycommand|localcommand|permitlocalcommand|knownhostscommand|match)\b/i.test(option),
  );
}

function destination(target: string): string {
  if (target.includes('://')) {
    const resource = urlResource(target.replace(/^[a-z][a-z0-9+.-]*:/i, 'ssh:'));
    return resource.startsWith('ssh://') ? resource.replace(/^(ssh:\/\/[^/]+).*$/, '$1') : resource;
  }
  return sshResource(target);
}

function jumpHosts(parsed: ParsedOptions): string[] {
  return optionValues(parsed, '-J').flatMap((value) =>
    value === null
      ? [everything]
      : value.split(',').map((host) => destination(host.replace(/:\d+$/, ''))),
  );
}

/** ssh: the host covers whatever the remote command does there. */
export const extractSsh: Extractor = (args, _context) => {
  const parsed = parseOptions(args, { short: 'bcDEeFIiJLlmOopQRSWwB', stopAtPositional: true });
  if (runsLocalCommand(parsed)) return [everything];
  const [target] = parsed.rest;
  if (target === undefined) return [];
  if (target === null) return [everything];
  return [destination(target), ...jumpHosts(parsed)];
};

/** `[user@]host:path` operands are remote (their host), the rest local files. */
function copyOperand(operand: Arg, context: CommandContext, daemon: boolean): string {
  if (operand === null) return everything;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(operand)) return destination(operand);
  const remote = /^((?:[^@/:]+@)?(?:\[[^\]]+\]|[^/:]+))::?/.exec(operand);
  if (remote?.[1] !== undefined && (daemon || !operand.startsWith(`${remote[1]}::`))) {
    return sshResource(remote[1]);
  }
  return context.file(operand);
}

export const extractScp: Extractor = (args, context) => {
  const parsed = parseOptions(args, { short: 'cDFiJloPSX' });
  if (runsLocalCommand(parsed) || optionValues(parsed, '-S').length > 0) return [everything];
  return [
    ...parsed.positionals.map((operand) => copyOperand(operand, context, false)),
    ...jumpHosts(parsed),
  ];
};

export const extractRsync: Extractor = (args, context) => {
  const parsed = parseOptions(args, {
    short: 'eTBfM',
    long: [
      'rsh',
      'rsync-path',
      'exclude',
      'include',
      'exclude-from',
      'include-from',
      'files-from',
      'password-file',
      'log-file',
      'temp-dir',
      'compare-dest',
      'copy-dest',
      'link-dest',
      'backup-dir',
      'suffix',
      'chmod',
      'chown',
      'timeout',
      'contimeout',
      'port',
      'max-size',
      'min-size',
      'bwlimit',
      'partial-dir',
      'filter',
      'block-size',
      'remote-option',
      'out-format',
      'info',
      'debug',
      'iconv',
      'sockopts',
      'outbuf',
      'usermap',
      'groupmap',
      'stop-after',
      'address',
      'max-delete',
      'modify-window',
    ],
  });
  const rsh = optionValues(parsed, '-e', '--rsh');
  // A remote shell other than plain ssh options may be any program.
  if (
    rsh.some((value) => value === null || !/^ssh(\s|$)/.test(value) || /proxycommand/i.test(value))
  ) {
    return [everything];
  }
  const lists = optionValues(
    parsed,
    '--exclude-from',
    '--include-from',
    '--files-from',
    '--password-file',
    '--log-file',
  );
  return [
    ...parsed.positionals.map((operand) => copyOperand(operand, context, true)),
    ...lists.map((file) => context.file(file)),
  ];
};
