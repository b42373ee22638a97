import { createMCPClient } from '@ai-sdk/mcp';
import { createRecovery, McpToolError, policyFromAnnotations } from '@recourse/ai-sdk';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount } from 'ai';
import { describe, expect, it } from 'vitest';
import { failureIn, readContract, useScriptedProvider } from '../test-support/harness.js';
import { createInProcessMcpTransport } from '../test-support/in-process-mcp.js';

const { provider, chat } = useScriptedProvider();

const objectSchema = (properties: Record<string, unknown>) => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
});

async function connect(calls: string[]) {
  const client = await createMCPClient({
    transport: createInProcessMcpTransport([
      {
        name: 'read_issue',
        inputSchema: objectSchema({ id: { type: 'number' } }),
        annotations: { readOnlyHint: true },
        call: ({ id }) => {
          calls.push(`read_issue ${id}`);
          return id === 404
            ? { text: 'Issue not found (404)', isError: true }
            : { text: `issue ${id}` };
        },
      },
      {
        name: 'delete_branch',
        inputSchema: objectSchema({ name: { type: 'string' } }),
        annotations: { destructiveHint: true, idempotentHint: true },
        call: ({ name }) => {
          calls.push(`delete_branch ${name}`);
          return { text: 'Permission denied: 403 Forbidden', isError: true };
        },
      },
      {
        name: 'post_comment',
        inputSchema: objectSchema({ body: { type: 'string' } }),
        call: ({ body }) => {
          calls.push(`post_comment ${body}`);
          return { text: 'posted' };
        },
      },
    ]),
  });
  return { client, tools: await client.tools() };
}

describe('MCP tools from @ai-sdk/mcp', () => {
  it('annotations set a default policy when the user gave none', async () => {
    const { client, tools } = await connect([]);
    expect(policyFromAnnotations(tools.read_issue)).toEqual({ sideEffects: false });
    expect(policyFromAnnotations(tools.delete_branch)).toEqual({
      sideEffects: true,
      idempotent: true,
    });
    // No annotations at all: nothing to go on, the user's policy (or none) applies.
    expect(policyFromAnnotations(tools.post_comment)).toBeUndefined();

    const recovery = createRecovery({
      runId: 'run-m1',
      policies: { read_issue: { sideEffects: true } }, // the user's word wins
    });
    recovery.tools(tools);
    expect(recovery.runtime.policyFor('read_issue')).toEqual({ sideEffects: true });
    expect(recovery.runtime.policyFor('delete_branch')).toEqual({
      sideEffects: true,
      idempotent: true,
    });
    await client.close();
  });

  it('a result with isError: true is a failure, classified from its text', async () => {
    provider.reset([
      toolCall('read_issue', { id: 1 }),
      toolCall('read_issue', { id: 404 }),
      toolCall('delete_branch', { name: 'main' }),
      toolCall('post_comment', { body: 'hi' }),
      text('stopped'),
    ]);
    const calls: string[] = [];
    const { client, tools } = await connect(calls);
    const recovery = createRecovery({ runId: 'run-m2' });

    const result = await generateText({
      model: chat(),
      prompt: 'Tidy up',
      tools: recovery.tools(tools),
      stopWhen: [isStepCount(10), recovery.stopWhen],
    });
    await client.close();

    expect(calls).toEqual(['read_issue 1', 'read_issue 404', 'delete_branch main']);
    const outputs = provider.toolResults().map((r) => r.output);
    expect(outputs[0]).toContain('issue 1'); // success still goes through the MCP output mapping
    expect(readContract(outputs[1]!)).toMatchObject({
      failure_class: 'PERMANENT',
      retry_same_action: false,
    });
    expect(result.steps).toHaveLength(3);
    expect(failureIn(result.steps[2]).cause).toBeInstanceOf(McpToolError);
    expect(recovery.outcome()).toMatchObject({ status: 'BLOCKED' });
  });
});
