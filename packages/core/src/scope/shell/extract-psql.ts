import { everything } from '../canonical-resource.js';
import { type PostgresTarget, postgresResource } from '../infra-resource.js';
import { urlResource } from '../url-resource.js';
import type { Extractor } from './command-context.js';
import { hasOption, optionValue, optionValues, parseOptions } from './parse-options.js';
import type { Arg } from './shell-word.js';

/** `host=db port=5433 dbname=prod` connection strings. */
function conninfo(text: string): PostgresTarget | undefined {
  if (!/^\s*\w+\s*=/.test(text)) return undefined;
  const pairs = new Map<string, string>();
  for (const match of text.matchAll(/(\w+)\s*=\s*('(?:[^'\\]|\\.)*'|\S+)/g)) {
    pairs.set(match[1] ?? '', (match[2] ?? '').replace(/^'|'$/g, ''));
  }
  return {
    host: pairs.get('host') ?? pairs.get('hostaddr'),
    port: pairs.get('port'),
    database: pairs.get('dbname'),
  };
}

/** psql, pg_dump, pg_restore, pgcli and friends; `PGHOST`-style environment counts. */
export function createPostgresExtractor(program: 'psql' | 'pg_dump' | 'pg_restore'): Extractor {
  return (args, context) => {
    const parsed = parseOptions(args, {
      short: program === 'psql' ? 'hpUdcfvPFRoLT' : 'hpUdfFnNtTjZSEI',
      long: [
        'host',
        'port',
        'username',
        'dbname',
        'command',
        'file',
        'variable',
        'set',
        'output',
        'log-file',
        'pset',
        'field-separator',
        'record-separator',
        'schema',
        'table',
        'exclude-schema',
        'exclude-table',
        'format',
        'jobs',
        'compress',
        'superuser',
        'encoding',
        'role',
      ],
    });
    const commands = optionValues(parsed, '-c', '--command');
    // `\!` runs a shell command on the client.
    if (commands.some((command) => command === null || command.includes('\\!')))
      return [everything];
    const env = (name: string): string | undefined => context.env.get(name) ?? undefined;
    if (context.env.get('PGSERVICE') != null || hasOption(parsed, '--service')) return [everything];
    const positionals = program === 'pg_restore' ? [] : parsed.positionals;
    const fileOptions =
      program === 'psql'
        ? ['-f', '--file', '-o', '--output', '-L', '--log-file']
        : ['-f', '--file'];
    const files = [
      ...optionValues(parsed, ...fileOptions),
      ...(program === 'pg_restore' ? parsed.positionals : []),
    ]
      .filter((file) => file !== '-')
      .map((file) => context.file(file));
    const named: Arg | undefined = optionValue(parsed, '-d', '--dbname') ?? positionals[0];
    if (named === null) return [everything, ...files];
    let target: PostgresTarget = {
      host: nonNull(optionValue(parsed, '-h', '--host')) ?? env('PGHOST'),
      port: nonNull(optionValue(parsed, '-p', '--port')) ?? env('PGPORT'),
      database: named ?? env('PGDATABASE'),
    };
    if (named !== undefined && /^postgres(ql)?:\/\//i.test(named))
      return [urlResource(named), ...files];
    const info = named === undefined ? undefined : conninfo(named);
    if (info !== undefined)
      target = {
        host: info.host ?? target.host,
        port: info.port ?? target.port,
        database: info.database,
      };
    const unknown = [
      optionValue(parsed, '-h', '--host'),
      optionValue(parsed, '-p', '--port'),
    ].includes(null);
    return [unknown ? everything : postgresResource(target), ...files];
  };
}

function nonNull(value: Arg | undefined): string | undefined {
  return value === null ? undefined : value;
}
