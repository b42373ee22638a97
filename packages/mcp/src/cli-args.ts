import { parseArgs } from 'node:util';
import { defaultLedgerFile } from './open-ledger.js';
import type { UpstreamSpec } from './upstream-link.js';

export interface CliOptions {
  upstream: UpstreamSpec;
  listen?: { host: string; port: number } | undefined;
  config?: string | undefined;
  ledger?: string | undefined;
  runId?: string | undefined;
  trace: boolean;
}

export type CliRequest = { help: true } | { help: false; options: CliOptions };

export const helpText = `recourse-mcp: recourse in front of one MCP server, for any MCP client.

Usage:
  recourse-mcp [options] -- <command> [args...]    the upstream, started over stdio
  recourse-mcp [options] --upstream <url>          the upstream over streamable HTTP

Options:
  --listen <host:port>  serve streamable HTTP at http://host:port/mcp (default: stdio)
  --config <file>       .mjs (export default { policies, defaultPolicy, scope, retry, runId })
                        or .json (the same, without functions)
  --ledger <target>     a SQLite file path, postgres://… or redis://…
                        (default: ./${defaultLedgerFile} in the working directory)
  --run-id <id>         one run for every session (default: one run per client session)
  --trace               print the recourse trace on stderr
  -h, --help            this text

Failed calls are answered with isError: true and the recovery contract as JSON text.
The idempotency key of each call travels upstream in params._meta["io.recourse/idempotency-key"].
`;

/** Thrown for a command line that cannot run: the message says what to fix. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export function parseCliArgs(argv: readonly string[]): CliRequest {
  const split = argv.indexOf('--');
  const own = split === -1 ? argv : argv.slice(0, split);
  const command = split === -1 ? [] : argv.slice(split + 1);
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...own],
      strict: true,
      allowPositionals: false,
      options: {
        help: { type: 'boolean', short: 'h' },
        upstream: { type: 'string' },
        listen: { type: 'string' },
        config: { type: 'string' },
        ledger: { type: 'string' },
        'run-id': { type: 'string' },
        trace: { type: 'boolean' },
      },
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (values.help) return { help: true };
  const url = values.upstream as string | undefined;
  if (url !== undefined && command.length > 0) {
    throw new UsageError('give either --upstream <url> or -- <command>, not both');
  }
  if (url === undefined && command.length === 0) {
    throw new UsageError('no upstream: give -- <command> [args...] or --upstream <url>');
  }
  if (url !== undefined && !/^https?:\/\//i.test(url)) {
    throw new UsageError(`--upstream must be an http(s) URL, got ${url}`);
  }
  const upstream: UpstreamSpec =
    url !== undefined ? { url } : { command: command[0] as string, args: command.slice(1) };
  return {
    help: false,
    options: {
      upstream,
      listen: values.listen === undefined ? undefined : parseListen(values.listen as string),
      config: values.config as string | undefined,
      ledger: values.ledger as string | undefined,
      runId: values['run-id'] as string | undefined,
      trace: values.trace === true,
    },
  };
}

function parseListen(value: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(value);
  const port = Number(match?.[3]);
  if (!match || port > 65_535) {
    throw new UsageError(`--listen must be host:port (e.g. 127.0.0.1:8931), got ${value}`);
  }
  return { host: match[1] ?? (match[2] || '127.0.0.1'), port };
}
