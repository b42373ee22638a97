import { randomUUID } from 'node:crypto';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  createConsoleTrace,
  type EventListener,
  InvalidOptionsError,
  type Ledger,
  optionChecks,
  type RecoveryOptions,
  validateRecoveryOptions,
} from '@recourse/core';
import { type ListenOptions, listenHttp, type ProxyListener } from './listen-http.js';
import { ProxySession } from './proxy-session.js';
import type { UpstreamSpec } from './upstream-link.js';

/**
 * `createRecoveryProxy`'s options: the upstream, and `createRecovery`'s options but for
 * `onDenial` and `onPoison` (a proxy never stops a whole session) and with `runId`
 * optional (default: one run per client session).
 */
export interface RecoveryProxyOptions
  extends Omit<RecoveryOptions, 'runId' | 'ledger' | 'onDenial' | 'onPoison'> {
  /** `{ command, args? }` (started over stdio) or `{ url }` (streamable HTTP). */
  upstream: UpstreamSpec;
  /** Every session's run id. Default: a new id per client session. */
  runId?: string | undefined;
  /** Where the runs' memory lives. Default: a `MemoryLedger` (the CLI's default is a SQLite file). */
  ledger?: Ledger | undefined;
  /** The console trace on stderr (`true`), or on your own writer. */
  trace?: boolean | ((line: string) => void) | undefined;
  /** A stdio upstream's stderr. Default 'inherit'. */
  upstreamStderr?: 'inherit' | 'ignore' | undefined;
}

export interface RecoveryProxy {
  /** Serves one client on `transport` (e.g. `StdioServerTransport`): one session, one run. */
  connect(transport: Transport): Promise<ProxySession>;
  /** Serves clients over streamable HTTP at `http://host:port/mcp`, one run per session. */
  listen(options: ListenOptions): Promise<ProxyListener>;
  /** Ends every session and its upstream connection (the ledger is yours to close). */
  close(): Promise<void>;
}

const proxyShape = {
  upstream: (value: unknown, field: string) => {
    const spec = value as { command?: unknown; url?: unknown } | null;
    const ok =
      typeof spec === 'object' &&
      spec !== null &&
      (typeof spec.command === 'string' || typeof spec.url === 'string');
    if (!ok) throw new InvalidOptionsError(field, 'must be { command, args? } or { url }');
  },
  trace: (value: unknown, field: string) => {
    if (typeof value !== 'boolean' && typeof value !== 'function')
      throw new InvalidOptionsError(field, 'must be a boolean or a function');
  },
  upstreamStderr: optionChecks.oneOf('inherit', 'ignore'),
};

export function createRecoveryProxy(options: RecoveryProxyOptions): RecoveryProxy {
  for (const field of ['onDenial', 'onPoison'] as const) {
    if (field in options) {
      throw new InvalidOptionsError(
        field,
        'a proxy never stops a whole session: denials close their resources, poison its own repeats',
      );
    }
  }
  validateRecoveryOptions({ runId: 'proxy', ...options }, proxyShape);
  const { upstream, trace, upstreamStderr, runId, onEvent, ...recovery } = options;
  const write =
    typeof trace === 'function'
      ? trace
      : trace === true
        ? (line: string) => process.stderr.write(`${line}\n`)
        : undefined;
  const listeners = [onEvent, write ? createConsoleTrace({ write }) : undefined].filter(
    (listener): listener is EventListener => listener !== undefined,
  );
  const report = (line: string) => write?.(`recourse-mcp: ${line}`);
  const sessions = new Set<ProxySession>();
  let listener: ProxyListener | undefined;

  const open = async (transport: Transport, sessionRunId?: string): Promise<ProxySession> => {
    const session = new ProxySession({
      downstream: transport,
      upstream,
      upstreamStderr,
      report,
      recovery: {
        ...recovery,
        runId: runId ?? sessionRunId ?? randomUUID(),
        ...(listeners.length === 0
          ? {}
          : {
              onEvent: (event) => {
                for (const listen of listeners) listen(event);
              },
            }),
      },
      onClose: () => sessions.delete(session),
    });
    sessions.add(session);
    await session.start();
    return session;
  };

  return {
    connect: (transport) => open(transport),
    async listen(listenOptions) {
      listener = await listenHttp(listenOptions, (transport, sessionId) =>
        open(transport, sessionId),
      );
      return listener;
    },
    async close() {
      await listener?.close();
      await Promise.all([...sessions].map((session) => session.close()));
    },
  };
}
