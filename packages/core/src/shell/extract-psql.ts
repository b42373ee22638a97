import { everything } from '../scope/canonical-resource.js';
import { postgresResource } from '../scope/infra-resource.js';
import type { CommandContext, Extractor } from './command-context.js';
import { isSet, targetVariable, variableOf } from './environment.js';
import { hasOption, optionValue, optionValues, parseOptions } from './parse-options.js';
import type { Arg } from './shell-word.js';

/** What the command line itself says about the server; a missing part comes from libpq's
 * environment (`PGHOST`, `PGPORT`, `PGDATABASE`) or its defaults. */
interface Named {
  host?: string | undefined;
  port?: string | undefined;
  database?: string | undefined;
  /** A `service` key names an entry of pg_service.conf, which can point anywhere. */
  service?: boolean | undefined;
}

/** `postgresql://[user@][host][:port][/db][?host=…&port=…&dbname=…]`; the query wins. */
function uri(text: string): Named | undefined {
  const match =
    /^postgres(?:ql)?:\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^:/?#]*)(?::(\d*))?(?:\/([^?#]*))?(?:\?([^#]*))?/i.exec(
      text,
    );
  if (match === null) return undefined;
  const [, host, port, database, query = ''] = match;
  const named: Named = {
    host: host ? decode(host) : undefined,
    port: port || undefined,
    database: database ? decode(database) : undefined,
  };
  return withPairs(named, new URLSearchParams(query));
}

/** `host=db port=5433 dbname=prod` connection strings. */
function conninfo(text: string): Named | undefined {
  if (!/^\s*\w+\s*=/.test(text)) return undefined;
  const pairs = new Map<string, string>();
  for (const match of text.matchAll(/(\w+)\s*=\s*('(?:[^'\\]|\\.)*'|\S+)/g)) {
    pairs.set(match[1] ?? '', (match[2] ?? '').replace(/^'|'$/g, ''));
  }
  return withPairs({}, pairs);
}

function withPairs(named: Named, pairs: { get(key: string): string | null | undefined }): Named {
  return {
    host: pairs.get('host') ?? pairs.get('hostaddr') ?? named.host,
    port: pairs.get('port') ?? named.port,
    database: pairs.get('dbname') ?? named.database,
    service: pairs.get('service') != null,
  };
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

// psql meta-commands that only describe, format or print: any other (`\c` connects
// elsewhere, `\!`, `\o |cmd` and `\g |cmd` run a shell command, `\copy`, `\i`, `\o`, `\w`
// and `\lo_*` read or write client files) may reach anything.
const harmlessMetaCommand =
  /^(?:d[a-zA-Z]*\+?|l\+?|list|x|timing|conninfo|echo|qecho|warn|q|quit|a|t|H|C|encoding|errverbose|sf\+?|sv\+?|z|set|unset|pset|f|if|elif|else|endif|gdesc|\?)$/;

// SQL that makes the server reach beyond the database it runs in: another database or
// server (dblink, a foreign-data wrapper), a program or a file on the server's host.
const outwardSql =
  /\b(?:dblink\w*|postgres_fdw|create\s+(?:server|foreign|extension)|import\s+foreign|copy\b[^;]*\bprogram|pg_read_(?:binary_)?file|pg_ls_dir|pg_stat_file|lo_import|lo_export)\b/i;

/** Whether a `-c` command may reach beyond the server and database it is sent to. */
function reachesOut(command: string): boolean {
  if (outwardSql.test(command)) return true;
  for (const match of command.matchAll(/\\([a-zA-Z_?!]+\+?|!)/g)) {
    if (!harmlessMetaCommand.test(match[1] ?? '')) return true;
  }
  return false;
}

/** The server and database, or `*` when a part that names the server is unknown. */
function target(named: Named, context: CommandContext): string {
  // PGHOSTADDR, when the line sets it, is where libpq connects; PGHOST names the server.
  const address =
    variableOf(context.env, 'PGHOSTADDR') === undefined
      ? undefined
      : targetVariable(context.env, 'PGHOSTADDR');
  if (named.host === undefined && address === null) return everything;
  const host = named.host ?? address ?? targetVariable(context.env, 'PGHOST');
  if (host === null) return everything;
  const port = named.port ?? targetVariable(context.env, 'PGPORT');
  const database = named.database ?? targetVariable(context.env, 'PGDATABASE');
  // An unknown database widens to the server; an unknown port to the host on any port.
  const resource = postgresResource({
    host,
    port: port ?? undefined,
    database: database ?? undefined,
  });
  return port === null ? resource.replace(/^(postgres:\/\/[^/:]+):\d+/, '$1') : resource;
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
    if (commands.some((command) => command === null || reachesOut(command))) return [everything];
    if (program === 'psql') {
      // A script file or standard input from the line may hold any meta-command.
      if (hasOption(parsed, '-f', '--file')) return [everything];
      const listing = hasOption(parsed, '-l', '--list', '-V', '--version', '-?', '--help');
      if (commands.length === 0 && !listing && context.inputFromLine) return [everything];
    }
    // A service (named, or a service file) can point anywhere; `''` is unset.
    const service = ['PGSERVICE', 'PGSERVICEFILE'].some((name) => isSet(context.env, name));
    if (service || hasOption(parsed, '--service')) return [everything];
    const positionals = program === 'pg_restore' ? [] : parsed.positionals;
    const fileOptions =
      program === 'psql' ? ['-o', '--output', '-L', '--log-file'] : ['-f', '--file'];
    const files = [
      ...optionValues(parsed, ...fileOptions),
      ...(program === 'pg_restore' ? parsed.positionals : []),
    ]
      .filter((file) => file !== '-')
      .map((file) => context.file(file));
    const dbname: Arg | undefined = optionValue(parsed, '-d', '--dbname') ?? positionals[0];
    const host = optionValue(parsed, '-h', '--host');
    const port = optionValue(parsed, '-p', '--port');
    if (dbname === null || host === null || port === null) return [everything, ...files];
    const fromName =
      dbname === undefined ? {} : (uri(dbname) ?? conninfo(dbname) ?? { database: dbname });
    if (fromName.service) return [everything, ...files];
    const named: Named = {
      host: fromName.host ?? host,
      port: fromName.port ?? port,
      database: fromName.database,
    };
    return [target(named, context), ...files];
  };
}
