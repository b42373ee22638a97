// Smoke scenarios of @recourse/openai-agents, run against the oldest and the newest
// @openai/agents of its peer range (installed under aliases), to keep the range honest.
import { callContext, createRecovery, shellResources, urlResource } from '@recourse/openai-agents';
import { createScriptedProvider, startProviderServer, text, toolCall } from '@recourse/testing';
import * as newest from 'agents-newest';
import * as oldest from 'agents-oldest';
import { http, passthrough } from 'msw';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createFixtureState,
  startFixtureHttp,
} from '../../packages/mcp/test-support/fixture-server.js';

const provider = createScriptedProvider();
let running: ReturnType<typeof startProviderServer>;
// The official MCP SDK's server over streamable HTTP (the @recourse/mcp test fixture).
let fixture: Awaited<ReturnType<typeof startFixtureHttp>>;
beforeAll(async () => {
  running = startProviderServer(provider);
  fixture = await startFixtureHttp();
  running.server.use(http.all(`${new URL(fixture.url).origin}/*`, () => passthrough()));
});
afterAll(async () => {
  running.close();
  await fixture.close();
});
beforeEach(() => provider.reset());

// Typed as the newest: the oldest's types differ in details these scenarios do not touch.
type Sdk = typeof newest;
const versions: { label: string; sdk: Sdk }[] = [
  { label: '@openai/agents oldest (0.16.0)', sdk: oldest as unknown as Sdk },
  { label: '@openai/agents newest (0.20.0)', sdk: newest },
];

describe.each(versions)('$label', ({ sdk }) => {
  beforeAll(() => {
    sdk.setTracingDisabled(true);
    sdk.setOpenAIAPI('responses');
    sdk.setDefaultOpenAIClient(
      new OpenAI({ apiKey: 'test', baseURL: provider.baseURL, maxRetries: 0 }) as never,
    );
  });

  it('a refund whose response was lost is reconciled and applied once', async () => {
    const refunds: string[] = [];
    let lose = true;
    const recovery = createRecovery({
      runId: 'run-compat',
      warn: false,
      policies: {
        refund_payment: {
          sideEffects: true,
          reconcile: (_input, { idempotencyKey }) =>
            refunds.includes(idempotencyKey)
              ? { happened: true, result: 'refunded' }
              : { happened: false },
        },
      },
    });
    const refund = sdk.tool({
      name: 'refund_payment',
      description: 'Refund a payment',
      parameters: z.object({ paymentId: z.string() }),
      errorFunction: null,
      execute: async () => {
        refunds.push(callContext().idempotencyKey);
        if (lose) {
          lose = false;
          throw new DOMException('The operation was aborted due to timeout', 'TimeoutError');
        }
        return 'refunded';
      },
    });
    const agent = new sdk.Agent({
      name: 'payments',
      model: 'gpt-4o',
      tools: recovery.tools([refund]),
      toolUseBehavior: recovery.toolUseBehavior,
    });
    provider.reset([
      toolCall('refund_payment', { paymentId: 'p-42' }),
      toolCall('refund_payment', { paymentId: 'p-42' }),
      text('Refunded.'),
    ]);
    const result = await sdk.run(agent, 'Refund p-42');

    expect(refunds).toHaveLength(1);
    expect(result.finalOutput).toBe('Refunded.');
    expect(provider.toolResults().map((r) => r.output)).toEqual(['refunded', 'refunded']);
    expect(recovery.outcome().status).toBe('COMPLETED');
  });

  it('a 403 blocks the shell bypass of the same turn and ends the run BLOCKED', async () => {
    const ran: string[] = [];
    const recovery = createRecovery({
      runId: 'run-compat-403',
      warn: false,
      policies: {
        github_repo: repoPolicy,
        shell: {
          sideEffects: true,
          resource: (i: { command: string }) => shellResources(i.command),
        },
      },
    });
    const agent = new sdk.Agent({
      name: 'engineer',
      model: 'gpt-4o',
      tools: recovery.tools([
        repoTool(sdk, async () => {
          ran.push('github_repo');
          throw Object.assign(new Error('Resource not accessible by integration'), {
            status: 403,
          });
        }),
        sdk.tool({
          name: 'shell',
          description: 'Run a command',
          parameters: z.object({ command: z.string() }),
          errorFunction: null,
          execute: () => {
            ran.push('shell');
            return 'cloned';
          },
        }),
      ]),
      toolUseBehavior: recovery.toolUseBehavior,
    });
    provider.reset([
      [
        toolCall('github_repo', { repo: 'acme/secret' }),
        toolCall('shell', { command: 'git clone https://github.com/ACME/Secret' }),
      ],
      text('never asked'),
    ]);
    const result = await sdk.run(agent, 'Read acme/secret');

    expect(ran).toEqual(['github_repo']);
    expect(provider.requests).toHaveLength(1);
    expect(recovery.outcome().status).toBe('BLOCKED');
    expect(result.finalOutput).toBe(recovery.outcome().summary);
  });

  it("a tool with the SDK's default error function: named once, its sentence a failure", async () => {
    const hidden: string[] = [];
    const recovery = createRecovery({
      runId: 'run-compat-hidden',
      warn: false,
      defaultPolicy: { sideEffects: false },
      onEvent: (event) => {
        if (event.type === 'tool.failures-hidden') hidden.push(event.tool);
      },
    });
    const agent = new sdk.Agent({
      name: 'reader',
      model: 'gpt-4o',
      tools: recovery.tools([
        sdk.tool({
          name: 'read_status',
          description: 'Read the status',
          parameters: z.object({}),
          execute: () => {
            throw new Error('upstream said no');
          },
        }),
      ]),
    });
    provider.reset([toolCall('read_status', {}), toolCall('read_status', {}), text('ok')]);
    await sdk.run(agent, 'Status?');

    expect(hidden).toEqual(['read_status']);
    expect(JSON.parse(provider.toolResults()[0]?.output ?? '{}')).toMatchObject({
      status: 'FAILED',
      failure_class: 'PERMANENT',
    });
  });

  it('an MCP server through recovery.mcpServers: a 403 isError is an AUTHORIZATION failure, the run ends BLOCKED', async () => {
    Object.assign(fixture.state, createFixtureState());
    const recovery = createRecovery({ runId: 'run-compat-mcp', warn: false });
    const server = new sdk.MCPServerStreamableHttp({ url: fixture.url, name: 'fixture' });
    await server.connect();
    provider.reset([toolCall('get_repo', { repo: 'acme/secret' }), text('never asked')]);
    try {
      const agent = new sdk.Agent({
        name: 'engineer',
        model: 'gpt-4o',
        mcpServers: recovery.mcpServers([server], {
          get_repo: repoPolicy,
        }),
        toolUseBehavior: recovery.toolUseBehavior,
      });
      await sdk.run(agent, 'Read acme/secret');
    } finally {
      await server.close();
    }
    expect(fixture.state.runs.get_repo).toBe(1);
    expect(provider.requests).toHaveLength(1);
    expect(recovery.outcome()).toMatchObject({
      status: 'BLOCKED',
      failures: [{ tool: 'get_repo', failure_class: 'AUTHORIZATION' }],
    });
  });

  it("escalation: 'approval' pauses a call outside the scope; the approved resume runs it", async () => {
    const ran: string[] = [];
    const recovery = createRecovery({
      runId: 'run-compat-approval',
      warn: false,
      scope: { deny: ['https://github.com/acme/vault'] },
      onDenial: 'continue',
      escalation: 'approval',
      policies: {
        github_repo: repoPolicy,
      },
    });
    const agent = new sdk.Agent({
      name: 'engineer',
      model: 'gpt-4o',
      tools: recovery.tools([
        repoTool(sdk, async ({ repo }) => {
          ran.push(repo);
          return 'readme';
        }),
      ]),
      toolUseBehavior: recovery.toolUseBehavior,
    });
    provider.reset([toolCall('github_repo', { repo: 'acme/vault' }), text('Read it.')]);
    const paused = await sdk.run(agent, 'Read acme/vault');
    expect(paused.interruptions.map((item) => item.name)).toEqual(['github_repo']);
    expect(ran).toEqual([]);
    for (const item of paused.interruptions) paused.state.approve(item);
    const resumed = await sdk.run(agent, paused.state);
    expect(ran).toEqual(['acme/vault']);
    expect(resumed.finalOutput).toBe('Read it.');
  });
});

const repoPolicy = {
  sideEffects: false,
  resource: (i: { repo: string }) => urlResource(`https://github.com/${i.repo}`),
};

/** The `github_repo` function tool of the scenarios, its failures reaching recourse. */
function repoTool(sdk: Sdk, execute: (input: { repo: string }) => Promise<string>) {
  return sdk.tool({
    name: 'github_repo',
    description: 'Read a repository',
    parameters: z.object({ repo: z.string() }),
    errorFunction: null,
    execute,
  });
}
