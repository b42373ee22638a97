import { mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { SqliteLedger } from '@recourse/core/sqlite';
import { type CallTool, createRecoveryProxy, type RecoveryProxyOptions } from '@recourse/mcp';
import { createTrace, type Log, type Observer } from '../shared/trace.js';

const require = createRequire(import.meta.url);
const here = import.meta.dirname;

/** An official SDK client talking to `createRecoveryProxy` in this process. */
async function through(options: RecoveryProxyOptions) {
  const proxy = createRecoveryProxy(options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await proxy.connect(serverSide);
  const client = new Client({ name: 'example-client', version: '1.0.0' });
  await client.connect(clientSide);
  return {
    client,
    close: async () => {
      await client.close();
      await proxy.close();
    },
  };
}

const textOf = (result: unknown) =>
  ((result as { content?: { text?: string }[] }).content ?? [])[0]?.text ?? '';

/**
 * `recourse-mcp` in front of two MCP servers, seen by an MCP client that knows nothing of
 * recourse. First the registry's `@modelcontextprotocol/server-everything`: its tools come
 * through unchanged, and a call is traced. Then a local ticket server whose write times out
 * after writing: the proxy's deadline passes, the write is in doubt, the policy's
 * `reconcile` asks the same server (`find_ticket`, by the idempotency key the proxy sent in
 * `_meta`) and finds it; the client asks again and is answered from the ledger. One ticket.
 */
export async function runMcpProxyExample(log: Log = console.log, observe?: Observer) {
  const trace = createTrace(log, observe, { guidance: true });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'recourse-mcp-example-'));
  const ledger = new SqliteLedger({ path: path.join(dir, 'recourse-mcp.ledger.sqlite') });

  const everything = path.join(
    path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
    'dist',
    'index.js',
  );
  const first = await through({
    upstream: { command: process.execPath, args: [everything] },
    upstreamStderr: 'ignore',
    ledger,
    runId: 'mcp-everything',
    onEvent: trace.onEvent,
  });
  const { tools } = await first.client.listTools();
  log(`server-everything through the proxy: ${tools.length} tools, as the server lists them`);
  const echoed = await first.client.callTool({ name: 'echo', arguments: { message: 'hello' } });
  log(`echo → ${textOf(echoed)}`);
  await first.close();

  const tickets = path.join(dir, 'tickets.json');
  const second = await through({
    upstream: {
      command: process.execPath,
      args: ['--import', 'tsx', path.join(here, 'ticket-server.ts'), tickets],
      cwd: here,
    },
    upstreamStderr: 'ignore',
    ledger,
    runId: 'mcp-tickets',
    onEvent: trace.onEvent,
    policies: {
      create_ticket: {
        sideEffects: true,
        timeoutMs: 3_000,
        reconcile: async (_input, info) => {
          const { callTool } = info as typeof info & { callTool: CallTool };
          const found = textOf(await callTool('find_ticket', { key: info.idempotencyKey }));
          return found === 'none'
            ? { happened: false }
            : { happened: true, result: { content: [{ type: 'text', text: found }] } };
        },
      },
    },
  });
  const call = { name: 'create_ticket', arguments: { title: 'Printer on fire' } };
  log(`create_ticket → ${textOf(await second.client.callTool(call))}`);
  log(`create_ticket, asked again → ${textOf(await second.client.callTool(call))}`);
  await second.close();
  await ledger.close();
  const written = JSON.parse(readFileSync(tickets, 'utf8')) as unknown[];
  log(`tickets on the server: ${written.length}`);
  return { tools: tools.length, tickets: written.length };
}
