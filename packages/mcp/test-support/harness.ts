import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createRecoveryProxy, type RecoveryProxyOptions } from '../src/index.js';

const here = import.meta.dirname;
const root = path.resolve(here, '..', '..', '..');

/** The stdio fixture server, as a command line. */
export const fixtureCommand = {
  command: process.execPath,
  args: ['--import', 'tsx', path.join(here, 'fixture-stdio.ts')],
  cwd: root,
};

/** `recourse-mcp` from its TypeScript sources, as a command line. */
export function proxyCommand(args: readonly string[]): { command: string; args: string[] } {
  return {
    command: process.execPath,
    args: [
      '--conditions=recourse-source',
      '--import',
      'tsx',
      path.join(here, '..', 'src', 'cli.ts'),
      ...args,
    ],
  };
}

export function tempDir(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'recourse-mcp-'));
}

/** An official SDK client over stdio to `command`. */
export async function stdioClient(spec: {
  command: string;
  args: string[];
  cwd?: string;
}): Promise<Client> {
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ ...spec, cwd: spec.cwd ?? root, stderr: 'ignore' }),
  );
  return client;
}

/** An official SDK client over streamable HTTP. */
export async function httpClient(url: string, headers?: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), headers ? { requestInit: { headers } } : {}),
  );
  return client;
}

/** The proxy in this process, in front of the stdio fixture, one client on an in-memory pair. */
export async function inProcessProxy(options: Partial<RecoveryProxyOptions> = {}) {
  const proxy = createRecoveryProxy({
    upstream: fixtureCommand,
    upstreamStderr: 'ignore',
    ...options,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const session = await proxy.connect(serverSide);
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  await client.connect(clientSide);
  return { proxy, session, client };
}

/** The text of a tool result's first content part. */
export function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content[0]?.text ?? '';
}

/** The recovery contract of a failed call. */
export function contractOf(result: unknown): Record<string, unknown> {
  if ((result as { isError?: unknown }).isError !== true) {
    throw new Error(`expected a failed call, got ${JSON.stringify(result)}`);
  }
  return JSON.parse(textOf(result)) as Record<string, unknown>;
}

/** The fixture's `stats` through a client. */
export async function statsOf(client: Client): Promise<{
  writes: string[];
  runs: Record<string, number>;
  keys: Record<string, string[]>;
}> {
  return JSON.parse(textOf(await client.callTool({ name: 'stats', arguments: {} })));
}
