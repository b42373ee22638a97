import { everything, type PostgresTarget, postgresResource, urlResource } from '@recourse/core';
import type { Extractor } from './command-context.js';
import { hasOption, optionValue, optionValues, parseOptions } from './parse-options.js';
import type { Arg } from './shell-word.js';

/**
 * `host=db port=5433 dbname=prod` connection strings, and the same keys in a URI's query
 * (`postgresql:///prod?host=db`), which override its authority. A `service` key names an
 * entry of pg_service.conf, which can point anywhere: undefined target, reach `*`.
 */
function conninfo(text: string): { target: PostgresTarget; service: boolean } | undefined {
  const pairs = new Map<string, string>();
  if (/^postgres(ql)?:\/\//i.test(text)) {
    const query = text.split('?')[1]?.split('#')[0] ?? '';
    for (const [key, value] of new URLSearchParams(query)) pairs.set(key, value);
  } else {
    if (!/^\s*\w+\s*=/.test(text)) return undefined;
    for (const match of text.matchAll(/(\w+)\s*=\s*('(?:[^'\\]|\\.)*'|\S+)/g)) {
      pairs.set(match[1] ?? '', (match[2] ?? '').replace(/^'|'$/g, ''));
    }
  }
  return {
    service: pairs.has('service'),
    target: {
      host: pairs.get('host') ?? pairs.get('hostaddr'),
      port: pairs.get('port'),
      database: pairs.get('dbname'),
    },
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
    const serviceFile = ['PGSERVICE', 'PGSERVICEFILE'].some((name) => context.env.has(name));
    if (serviceFile || hasOption(parsed, '--service')) return [everything];
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
    const info = named === undefined ? undefined : conninfo(named);
    if (info?.service) return [everything, ...files];
    if (named !== undefined && /^postgres(ql)?:\/\//i.test(named)) {
      const { host, port, database } = info?.target ?? {};
      if (host === undefined && port === undefined && database === undefined)
        return [urlResource(named), ...files];
      const url = urlResource(named.split('?')[0] ?? '');
      const server = /^postgres:\/\/([^/:]+):(\d+)(?:\/(.*))?$/.exec(url);
      if (server === null) return [everything, ...files];
      target = {
        host: host ?? server[1],
        port: port ?? server[2],
        database: database ?? server[3],
      };
    } else if (info !== undefined)
      target = {
        host: info.target.host ?? target.host,
        port: info.target.port ?? target.port,
        database: info.target.database,
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
