import { shellResources, urlResource } from '@recourse/core';
import { scriptedProviderServer, text, toolCall } from '@recourse/testing';
import { HttpResponse, http } from 'msw';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRecovery } from './index.js';
import {
  contractFor,
  createClient,
  modes,
  outputFor,
  runLoop,
  unansweredInRun,
} from './test-support/harness.js';

const secret = 'ghp_0123456789abcdefghijABCDEFGHIJ012345';
const running = scriptedProviderServer();
const { provider } = running;
const github = { requests: [] as string[] };
beforeAll(() => {
  running.start();
  // A downstream API reached through a real client, so tools throw real APIError objects.
  running.server.use(
    http.get('https://github.test/repos/:owner/:repo', ({ params }) => {
      github.requests.push(`${params.owner}/${params.repo}`);
      return params.repo === 'secret'
        ? HttpResponse.json({ message: `Forbidden for token ${secret}` }, { status: 403 })
        : HttpResponse.json({ name: params.repo });
    }),
    http.patch('https://github.test/repos/:owner/:repo/issues/:id', () => {
      github.requests.push('patch');
      return HttpResponse.json({ message: 'version mismatch' }, { status: 412 });
    }),
  );
});
afterAll(running.stop);
beforeEach(() => {
  provider.reset();
  github.requests.length = 0;
});

const downstream = () =>
  new OpenAI({ apiKey: secret, baseURL: 'https://github.test', maxRetries: 0 });

function setUp(options: { onDenial?: 'stop' | 'continue' } = {}) {
  const shellRuns: string[] = [];
  const refunds: unknown[] = [];
  const recovery = createRecovery({
    runId: 'run-7',
    retry: { baseDelayMs: 0 },
    ...options,
    policies: {
      github_api: {
        resource: (input: { repo: string }) => urlResource(`https://github.com/${input.repo}`),
      },
      update_issue: { sideEffects: true },
      // gh talks to github.com here: GH_HOST is said to be unset, whatever this process has.
      shell: {
        resource: (input: { command: string }) =>
          shellResources(input.command, { env: { GH_HOST: '' } }),
      },
    },
  });
  const tools = recovery.tools({
    refund_payment: {
      inputSchema: z.object({ paymentId: z.string(), amount: z.number().positive() }),
      execute: (input) => {
        refunds.push(input);
        return 'refunded';
      },
    },
    github_api: {
      description: 'Read a GitHub repository',
      inputSchema: z.object({ repo: z.string() }),
      execute: async (input) => downstream().get(`/repos/${input.repo}`),
    },
    update_issue: {
      inputSchema: z.object({ repo: z.string(), id: z.number(), title: z.string() }),
      execute: async (input) =>
        downstream().patch(`/repos/${input.repo}/issues/${input.id}`, {
          body: { title: input.title },
        }),
    },
    shell: {
      inputSchema: z.object({ command: z.string() }),
      execute: (input) => {
        shellRuns.push(input.command);
        return 'ok';
      },
    },
  });
  return { recovery, tools, shellRuns, refunds };
}

describe.each(modes)(
  'failures reach the model as a recovery contract ($api, stream: $stream)',
  (mode) => {
    it('a zod validation failure names the field; repaired, the call then runs', async () => {
      const { recovery, tools, refunds } = setUp();
      provider.reset([
        toolCall('refund_payment', { paymentId: 'p-1', amount: -5 }),
        toolCall('refund_payment', { paymentId: 'p-1', amount: 5 }),
        text('done'),
      ]);
      const result = await runLoop(recovery, createClient(provider), mode, tools, 'refund');

      expect(contractFor(result.conversation, 'call_1')).toMatchObject({
        failure_class: 'VALIDATION',
        recommended_recovery: 'REPAIR',
        retry_same_action: false,
        invalid_field: 'amount',
        repairs_remaining: 1,
      });
      expect(refunds).toEqual([{ paymentId: 'p-1', amount: 5 }]);
      expect(result.outcome.status).toBe('COMPLETED');
      // The repair guidance went into the next request.
      const next = provider.requests[1]!;
      if (mode.api === 'responses') expect(next.body.instructions).toContain('field "amount"');
      else
        expect((next.body.messages as unknown[]).at(-1)).toMatchObject({
          role: 'system',
          content: expect.stringContaining('field "amount"'),
        });
    });

    it('invalid JSON arguments and an unknown tool are VALIDATION; execute never runs', async () => {
      const { recovery, tools, refunds } = setUp();
      provider.reset([
        [
          toolCall('refund_payment', '{"paymentId": "p-1", "amount": '),
          toolCall('drop_database', {}),
        ],
        text('sorry'),
      ]);
      const result = await runLoop(recovery, createClient(provider), mode, tools, 'refund');

      expect(contractFor(result.conversation, 'call_1')).toMatchObject({
        failure_class: 'VALIDATION',
        recommended_recovery: 'REPAIR',
        code: 'INVALID_JSON',
      });
      expect(contractFor(result.conversation, 'call_2')).toMatchObject({
        failure_class: 'VALIDATION',
        code: 'NO_SUCH_TOOL',
      });
      expect(refunds).toEqual([]);
      expect(result.text).toBe('sorry');
    });

    it('the same invalid call past the repair budget is poison: the loop stops', async () => {
      const { recovery, tools } = setUp();
      const bad = () => toolCall('refund_payment', { paymentId: 'p-1', amount: 'ten' });
      provider.reset([bad(), bad(), bad(), text('never asked')]);
      const result = await runLoop(recovery, createClient(provider), mode, tools, 'refund');

      expect(result.outcome).toMatchObject({ status: 'FAILED', reason: 'POISON' });
      expect(provider.requests).toHaveLength(3);
      expect(provider.remaining()).toBe(1);
      expect(contractFor(result.conversation, 'call_3')).toMatchObject({
        recommended_recovery: 'ABORT',
        code: 'POISON',
        retry_same_action: false,
      });
      expect(unansweredInRun(provider, result)).toEqual([]);
    });

    it('a 403 blocks the run; the shell route to the same repository never runs', async () => {
      const { recovery, tools, shellRuns } = setUp();
      provider.reset([
        [
          toolCall('github_api', { repo: 'acme/secret' }),
          toolCall('shell', { command: 'git clone https://github.com/ACME/Secret' }),
        ],
        toolCall('shell', { command: `gh api repos/acme/secret` }),
        text('never asked'),
      ]);
      const result = await runLoop(
        recovery,
        createClient(provider),
        mode,
        tools,
        'read acme/secret',
      );

      expect(result.outcome).toMatchObject({ status: 'BLOCKED', reason: 'AUTHORIZATION_DENIED' });
      expect(shellRuns).toEqual([]);
      expect(github.requests).toEqual(['acme/secret']);
      expect(provider.requests).toHaveLength(1);
      expect(contractFor(result.conversation, 'call_1')).toMatchObject({
        status: 'BLOCKED',
        failure_class: 'AUTHORIZATION',
        recommended_recovery: 'ABORT',
        retry_same_action: false,
      });
      // The second call of the same turn is answered too, without running.
      expect(contractFor(result.conversation, 'call_2')).toMatchObject({
        retry_same_action: false,
      });
      expect(unansweredInRun(provider, result)).toEqual([]);
      const everything = JSON.stringify(result.conversation);
      expect(everything).not.toContain(secret);
      expect(everything).not.toMatch(/\bat .*\.(ts|js):\d+/); // no stack frames
    });

    it("with onDenial: 'continue', only routes to the denied repository stay blocked", async () => {
      const { recovery, tools, shellRuns } = setUp({ onDenial: 'continue' });
      provider.reset([
        toolCall('github_api', { repo: 'acme/secret' }),
        [
          toolCall('shell', { command: 'gh api repos/acme/secret' }),
          toolCall('shell', { command: 'gh api repos/acme/app' }),
        ],
        text('done'),
      ]);
      const result = await runLoop(
        recovery,
        createClient(provider),
        mode,
        tools,
        'read acme/secret',
      );

      expect(shellRuns).toEqual(['gh api repos/acme/app']);
      expect(contractFor(result.conversation, 'call_2')).toMatchObject({ status: 'BLOCKED' });
      expect(outputFor(result.conversation, 'call_3')).toBe('ok');
      // The run went on without what was denied: a partial result that names the blocks.
      expect(result.outcome.status).toBe('PARTIAL_RESULT');
      expect(result.outcome.blocked?.map((b) => b.resource)).toContain(
        'https://github.com/acme/secret',
      );
      expect(result.text).toBe('done');
    });

    it('a 412 answers REOBSERVE and the write is not re-sent', async () => {
      const { recovery, tools } = setUp();
      provider.reset([
        toolCall('update_issue', { repo: 'acme/app', id: 7, title: 'x' }),
        text('will re-read'),
      ]);
      const result = await runLoop(recovery, createClient(provider), mode, tools, 'rename issue 7');

      expect(contractFor(result.conversation, 'call_1')).toMatchObject({
        failure_class: 'STALE_STATE',
        recommended_recovery: 'REOBSERVE',
        retry_same_action: false,
      });
      expect(github.requests).toEqual(['patch']);
      expect(result.text).toBe('will re-read');
    });

    it('parallel calls in one turn are each answered, in order', async () => {
      const { recovery, tools, refunds } = setUp();
      provider.reset([
        [
          toolCall('refund_payment', { paymentId: 'p-1', amount: 1 }),
          toolCall('github_api', { repo: 'acme/app' }),
          toolCall('refund_payment', { paymentId: 'p-2', amount: 2 }),
        ],
        text('all done'),
      ]);
      const result = await runLoop(recovery, createClient(provider), mode, tools, 'go');

      expect(provider.toolResults().map((r) => [r.callId, r.output])).toEqual([
        ['call_1', 'refunded'],
        ['call_2', '{"name":"app"}'],
        ['call_3', 'refunded'],
      ]);
      expect(refunds).toHaveLength(2);
      expect(unansweredInRun(provider, result)).toEqual([]);
    });
  },
);

// Core bug, shown here: a resource function that returns [] ("touches nothing I know of",
// e.g. shellResources('ls -la')) is treated like a tool without one, i.e. as touching
// everything, so after a denial with onDenial: 'continue' it is blocked. Flip to `it`
// once the runtime keeps an empty list as "nothing".
it("with onDenial: 'continue', a command that touches nothing still runs", async () => {
  const { recovery, tools, shellRuns } = setUp({ onDenial: 'continue' });
  provider.reset([
    toolCall('github_api', { repo: 'acme/secret' }),
    toolCall('shell', { command: 'ls -la' }),
    text('done'),
  ]);
  await runLoop(recovery, createClient(provider), modes[0], tools, 'read acme/secret');
  expect(shellRuns).toEqual(['ls -la']);
});
