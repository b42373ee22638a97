import {
  Agent,
  getAllMcpTools,
  type MCPServer,
  MCPServerStreamableHttp,
  run,
} from '@openai/agents';
import { text, toolCall } from '@recourse/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createFixtureState, startFixtureHttp } from '../../mcp/test-support/fixture-server.js';
import { createRecovery, shellResources, urlResource } from './index.js';
import { report, useAgentsHarness } from './test-support/agents.js';

// The official MCP SDK's server (the @recourse/mcp fixture) over streamable HTTP, reached
// by the Agents SDK's own MCPServerStreamableHttp client, the model scripted with msw.
const harness = useAgentsHarness();
let fixture: Awaited<ReturnType<typeof startFixtureHttp>>;
beforeAll(async () => {
  fixture = await startFixtureHttp();
  harness.passThrough(new URL(fixture.url).origin);
});
afterAll(() => fixture.close());
beforeEach(() => {
  Object.assign(fixture.state, createFixtureState());
});

/** A connected client of the fixture, closed after `use`. */
async function withServer<T>(use: (server: MCPServer) => Promise<T>): Promise<T> {
  const server = new MCPServerStreamableHttp({ url: fixture.url, name: 'fixture' });
  await server.connect();
  try {
    return await use(server);
  } finally {
    await server.close();
  }
}

const readThenWriteTwice = () => [
  toolCall('flaky_read', { id: 'a' }), // isError "503 Service Unavailable" once
  toolCall('write_entry', { id: 'w-1' }),
  toolCall('write_entry', { id: 'w-1' }), // the model asks again
  text('done'),
];

describe('an MCP server on the agent (mcpServers)', () => {
  it('a 503 isError on a read is retried inside the call; the write is sent once, its key in _meta; annotations seed the policies', async () => {
    const recovery = createRecovery({ runId: 'run-mcp', retry: { baseDelayMs: 0 }, warn: false });
    harness.script(readThenWriteTwice());
    await withServer(async (server) => {
      const agent = new Agent({
        name: 'notes',
        model: 'gpt-4o',
        mcpServers: recovery.mcpServers([server]),
        toolUseBehavior: recovery.toolUseBehavior,
      });
      await run(agent, 'Read a, write w-1');
    });

    const outputs = harness.toolOutputs();
    expect(outputs[0]?.[1]).toContain('value a');
    expect(fixture.state.flaky.a).toBe(2);
    expect(fixture.state.writes).toEqual(['w-1']);
    expect(fixture.state.keys.write_entry).toEqual([
      expect.stringMatching(/^run-mcp:write_entry:/),
    ]);
    expect(outputs[2]?.[1]).toBe(outputs[1]?.[1]); // the repeat answered from the ledger
    expect(recovery.runtime.policyFor('flaky_read')).toMatchObject({ sideEffects: false });
    expect(recovery.runtime.policyFor('write_entry')).toMatchObject({ sideEffects: true });
    expect(recovery.outcome()).toMatchObject({
      status: 'COMPLETED',
      recoveries: [{ tool: 'flaky_read', failure_class: 'TRANSIENT', action: 'RETRY' }],
    });
  });

  it('baseline (the SDK alone): the isError text reaches the model as a value, the write lands twice', async () => {
    harness.script(readThenWriteTwice());
    await withServer(async (server) => {
      await run(new Agent({ name: 'notes', model: 'gpt-4o', mcpServers: [server] }), 'Go');
    });
    expect(harness.toolOutputs()[0]?.[1]).toContain('503 Service Unavailable');
    expect(fixture.state.writes).toEqual(['w-1', 'w-1']);
    report('MCP write asked twice, SDK alone', {
      writes: fixture.state.writes.length,
      duplicates: fixture.state.writes.length - 1,
    });
  });

  it('a 403 isError blocks the shell bypass; the run ends BLOCKED', async () => {
    const recovery = createRecovery({ runId: 'run-mcp-403', warn: false });
    harness.script([
      toolCall('get_repo', { repo: 'acme/secret' }),
      toolCall('shell', { command: 'git clone https://github.com/ACME/Secret' }),
      text('never asked'),
    ]);
    const result = await withServer((server) =>
      run(
        new Agent({
          name: 'engineer',
          model: 'gpt-4o',
          mcpServers: recovery.mcpServers([server], {
            get_repo: {
              resource: (input: { repo: string }) =>
                urlResource(`https://github.com/${input.repo}`),
            },
            shell: { resource: (input: { command: string }) => shellResources(input.command) },
          }),
          toolUseBehavior: recovery.toolUseBehavior,
        }),
        'Read acme/secret',
      ),
    );

    expect(harness.contract('call_1', result)).toMatchObject({
      failure_class: 'AUTHORIZATION',
      status: 'BLOCKED',
    });
    expect(fixture.state.runs.shell).toBeUndefined();
    expect(harness.provider.requests).toHaveLength(1);
    expect(recovery.outcome().status).toBe('BLOCKED');
  });
});

it('MCP tools listed with getAllMcpTools and passed through tools(): a 422 isError is repaired through the model, each call run once', async () => {
  const recovery = createRecovery({ runId: 'run-mcp-tools', warn: false });
  harness.script([
    toolCall('check_value', { value: 3 }),
    toolCall('check_value', { value: 4 }),
    text('done'),
  ]);
  await withServer(async (server) => {
    const listed = await getAllMcpTools({
      mcpServers: recovery.mcpServers([server]),
      errorFunction: null, // the failure reaches recourse
    });
    const agent = new Agent({
      name: 'checker',
      model: 'gpt-4o',
      tools: recovery.tools(listed),
      toolUseBehavior: recovery.toolUseBehavior,
    });
    await run(agent, 'Check a value');
  });

  expect(harness.contract('call_1')).toMatchObject({
    failure_class: 'VALIDATION',
    recommended_recovery: 'REPAIR',
  });
  expect(harness.toolOutputs()[1]?.[1]).toContain('ok 4');
  expect(fixture.state.runs.check_value).toBe(2);
  expect(recovery.outcome().status).toBe('COMPLETED');
});
