import { loadMcpTools } from '@langchain/mcp-adapters';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createRecovery, recoveryContractOf } from '@recourse/langchain';
import { text, toolCall } from '@recourse/testing';
import { createAgent } from 'langchain';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toolOutputs, useScriptedProvider } from '../test-support/harness.js';

const { provider, model } = useScriptedProvider();

/** A real MCP server and client over the SDK's in-memory transport; the tools through LangChain's adapter. */
async function mcpTools(answers: { lookup: string[]; refund: string[] }) {
  const calls = { lookup: 0, refund: 0 };
  const server = new McpServer({ name: 'payments', version: '1.0.0' });
  const answer = (name: 'lookup' | 'refund') => {
    calls[name]++;
    const next = answers[name].shift() ?? 'ok';
    return next === 'ok'
      ? { content: [{ type: 'text' as const, text: `${name} ok` }] }
      : { content: [{ type: 'text' as const, text: next }], isError: true };
  };
  server.registerTool(
    'lookup_payment',
    { inputSchema: { paymentId: z.string() }, annotations: { readOnlyHint: true } },
    () => answer('lookup'),
  );
  server.registerTool(
    'refund_payment',
    { inputSchema: { paymentId: z.string(), amount: z.number() } },
    () => answer('refund'),
  );
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'agent', version: '1.0.0' });
  await client.connect(clientSide);
  const tools = await loadMcpTools('payments', client);
  return { tools, calls, close: () => client.close() };
}

let closing: (() => Promise<void>) | undefined;
afterEach(() => closing?.());

describe('@langchain/mcp-adapters tools whose isError results throw', () => {
  it('a 500 from a read-only MCP tool is retried inside the call (its annotation makes it a read)', async () => {
    const mcp = await mcpTools({ lookup: ['HTTP 500 Internal Server Error'], refund: [] });
    closing = mcp.close;
    provider.reset([toolCall('lookup_payment', { paymentId: 'p-42' }), text('done')]);
    const recovery = createRecovery({ runId: 'run-mcp-503', retry: { baseDelayMs: 0 } });
    const agent = createAgent({
      model: model(),
      tools: mcp.tools,
      middleware: [recovery.middleware],
    });

    await agent.invoke({ messages: [{ role: 'user', content: 'Look up p-42' }] });

    // readOnlyHint made it a read (a 500 of a tool that may write is in doubt, never retried).
    expect(mcp.calls.lookup).toBe(2);
    expect(toolOutputs(provider)).toEqual(['lookup ok']);
    expect(recovery.outcome()).toMatchObject({
      status: 'COMPLETED',
      recoveries: [{ tool: 'lookup_payment', failure_class: 'TRANSIENT', action: 'RETRY' }],
    });
  });

  it('a 500 from an MCP tool that may write is in doubt: not re-sent', async () => {
    const mcp = await mcpTools({ lookup: [], refund: ['HTTP 500 Internal Server Error'] });
    closing = mcp.close;
    provider.reset([toolCall('refund_payment', { paymentId: 'p-42', amount: 100 }), text('never')]);
    const recovery = createRecovery({ runId: 'run-mcp-500' });
    const agent = createAgent({
      model: model(),
      tools: mcp.tools,
      middleware: [recovery.middleware],
    });

    const result = await agent.invoke({ messages: [{ role: 'user', content: 'Refund p-42' }] });

    expect(mcp.calls.refund).toBe(1);
    expect(recoveryContractOf(result.messages.at(-1))).toMatchObject({
      failure_class: 'UNKNOWN_OUTCOME',
      retry_same_action: false,
    });
    expect(recovery.outcome()).toMatchObject({ status: 'FAILED', reason: 'RECONCILE_BY_HAND' });
  });

  it('a 403 from an MCP tool is a denial: BLOCKED, the loop ends', async () => {
    const mcp = await mcpTools({ lookup: [], refund: ['HTTP 403 Forbidden: not your merchant'] });
    closing = mcp.close;
    provider.reset([toolCall('refund_payment', { paymentId: 'p-42', amount: 100 }), text('never')]);
    const recovery = createRecovery({ runId: 'run-mcp-403' });
    const agent = createAgent({
      model: model(),
      tools: mcp.tools,
      middleware: [recovery.middleware],
    });

    const result = await agent.invoke({ messages: [{ role: 'user', content: 'Refund p-42' }] });

    expect(mcp.calls.refund).toBe(1);
    expect(provider.requests).toHaveLength(1);
    expect(recoveryContractOf(result.messages.at(-1))).toMatchObject({
      failure_class: 'AUTHORIZATION',
      recommended_recovery: 'ABORT',
    });
    expect(recovery.outcome().status).toBe('BLOCKED');
  });

  it('without recourse, LangChain hands the model the exception text and asks it to fix its mistakes', async () => {
    const mcp = await mcpTools({ lookup: ['HTTP 503 Service Unavailable'], refund: [] });
    closing = mcp.close;
    provider.reset([toolCall('lookup_payment', { paymentId: 'p-42' }), text('done')]);
    const agent = createAgent({ model: model(), tools: mcp.tools });

    await agent.invoke({ messages: [{ role: 'user', content: 'Look up p-42' }] });

    expect(mcp.calls.lookup).toBe(1);
    expect(toolOutputs(provider)[0]).toMatch(/ToolException.*503[\s\S]*Please fix your mistakes/);
  });
});
