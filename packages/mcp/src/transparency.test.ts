import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureCommand, proxyCommand, stdioClient, tempDir } from '../test-support/harness.js';

// The same server with and without the proxy, both over stdio: every field of what a
// client sees on success is equal.
describe('transparency over stdio (recourse-mcp -- <server>)', () => {
  let direct: Client;
  let proxied: Client;
  beforeAll(async () => {
    const dir = tempDir();
    [direct, proxied] = await Promise.all([
      stdioClient(fixtureCommand),
      stdioClient(
        proxyCommand([
          '--ledger',
          path.join(dir, 'ledger.sqlite'),
          '--',
          fixtureCommand.command,
          ...fixtureCommand.args,
        ]),
      ),
    ]);
  });
  afterAll(async () => {
    await Promise.all([direct?.close(), proxied?.close()]);
  });

  it('initialize: the server name, version, capabilities and instructions', () => {
    expect(proxied.getServerVersion()).toEqual(direct.getServerVersion());
    expect(proxied.getServerCapabilities()).toEqual(direct.getServerCapabilities());
    expect(proxied.getInstructions()).toEqual(direct.getInstructions());
  });

  it('tools/list: names, descriptions, schemas, annotations and _meta', async () => {
    const [a, b] = await Promise.all([direct.listTools(), proxied.listTools()]);
    expect(b).toEqual(a);
    expect(b.tools.find((tool) => tool.name === 'read_note')?.annotations?.readOnlyHint).toBe(true);
  });

  it('tools/call of a read and of a write: every field of the result', async () => {
    const read = { name: 'read_note', arguments: { id: 'n1' } };
    expect(await proxied.callTool(read)).toEqual(await direct.callTool(read));
    const write = { name: 'write_entry', arguments: { id: 'w-transparent' } };
    expect(await proxied.callTool(write)).toEqual(await direct.callTool(write));
  });

  it('resources and prompts pass through', async () => {
    expect(await proxied.listResources()).toEqual(await direct.listResources());
    const uri = { uri: 'fixture://readme' };
    expect(await proxied.readResource(uri)).toEqual(await direct.readResource(uri));
    expect(await proxied.listPrompts()).toEqual(await direct.listPrompts());
    const prompt = { name: 'greet', arguments: { name: 'Ada' } };
    expect(await proxied.getPrompt(prompt)).toEqual(await direct.getPrompt(prompt));
  });
});
