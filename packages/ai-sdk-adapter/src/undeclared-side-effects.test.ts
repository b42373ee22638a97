import { createMCPClient } from '@ai-sdk/mcp';
import { createRecovery } from '@recourse/ai-sdk';
import { callContext, type RecoveryEvent } from '@recourse/core';
import { createFakeClock } from '@recourse/core/testing';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  driveClock,
  failureIn,
  httpFailure,
  readContract,
  useScriptedProvider,
} from '../test-support/harness.js';
import { createInProcessMcpTransport } from '../test-support/in-process-mcp.js';

const { provider, chat } = useScriptedProvider();
const transferArgs = { to: 'acct-9', amount: 5 };

// What undici's fetch throws: a TypeError whose cause carries the socket's errno.
const fetchFailed = (code: string, message: string) =>
  Object.assign(new TypeError('fetch failed'), {
    cause: Object.assign(new Error(message), { code }),
  });

/**
 * A transfer service the tool talks to: every request is recorded with its key; `first`
 * decides what the first request does (`landed`: applied, then the answer is lost).
 */
function createTransfers(first: { error: () => unknown; landed: boolean }) {
  const requests: string[] = [];
  const applied: string[] = [];
  const transfer = tool({
    description: 'Transfer money',
    inputSchema: z.object({ to: z.string(), amount: z.number() }),
    execute: async () => {
      const key = callContext().idempotencyKey;
      requests.push(key);
      if (requests.length === 1) {
        if (first.landed) applied.push(key);
        throw first.error();
      }
      applied.push(key);
      return 'sent';
    },
  });
  return { requests, applied, transfer };
}

describe('a tool without sideEffects may write', () => {
  const afterTheWrite: [string, () => unknown][] = [
    ['a client timeout', () => new DOMException('The operation timed out.', 'TimeoutError')],
    ['a connection reset', () => fetchFailed('ECONNRESET', 'read ECONNRESET')],
    ['a 500', () => httpFailure(500)],
    ['a 502', () => httpFailure(502)],
    ['a 504', () => httpFailure(504)],
  ];
  it.each(afterTheWrite)(
    '%s after the write landed is UNKNOWN_OUTCOME: never re-sent, not even when the model asks again',
    async (_label, error) => {
      provider.reset([
        toolCall('transfer', transferArgs),
        toolCall('transfer', transferArgs),
        text('done'),
      ]);
      const transfers = createTransfers({ error, landed: true });
      const recovery = createRecovery({ runId: 'run-u1', retry: { baseDelayMs: 0 } });

      // No stopWhen: the model's repeat reaches the wrapper and must still not be sent.
      await generateText({
        model: chat(),
        prompt: 'Send 5 to acct-9',
        tools: recovery.tools({ transfer: transfers.transfer }),
        stopWhen: isStepCount(5),
      });

      expect(transfers.requests).toHaveLength(1);
      expect(transfers.applied).toHaveLength(1);
      const key = transfers.requests[0]!;
      const [first, again] = provider.toolResults().map((r) => readContract(r.output));
      expect(first).toMatchObject({
        failure_class: 'UNKNOWN_OUTCOME',
        recommended_recovery: 'ABORT',
        retry_same_action: false,
        code: 'RECONCILE_BY_HAND',
        idempotency_key: key,
      });
      expect(again).toMatchObject({ retry_same_action: false });
      expect(recovery.outcome()).toMatchObject({
        status: 'FAILED',
        reason: 'RECONCILE_BY_HAND',
        needs_reconciliation: [{ tool: 'transfer', idempotency_key: key }],
      });
    },
  );

  const nothingProcessed: [string, () => unknown][] = [
    [
      'a refused connection',
      () => fetchFailed('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.9:443'),
    ],
    ['a DNS failure', () => fetchFailed('ENOTFOUND', 'getaddrinfo ENOTFOUND bank.test')],
    ['a 429', () => httpFailure(429)],
    ['a 503', () => httpFailure(503)],
  ];
  it.each(nothingProcessed)(
    '%s proves nothing was processed: retried inside the call, applied once',
    async (_label, error) => {
      provider.reset([toolCall('transfer', transferArgs), text('done')]);
      const transfers = createTransfers({ error, landed: false });
      const clock = createFakeClock();
      const recovery = createRecovery({ runId: 'run-u2', clock, random: () => 0.5 });

      await driveClock(
        clock,
        generateText({
          model: chat(),
          prompt: 'Send 5 to acct-9',
          tools: recovery.tools({ transfer: transfers.transfer }),
          stopWhen: [isStepCount(5), recovery.stopWhen],
        }),
      );

      expect(transfers.requests).toHaveLength(2);
      expect(new Set(transfers.requests).size).toBe(1); // the retry carries the same key
      expect(transfers.applied).toHaveLength(1);
      expect(provider.toolResults().map((r) => r.output)).toEqual(['sent']);
      expect(recovery.outcome()).toMatchObject({
        status: 'COMPLETED',
        recoveries: [{ tool: 'transfer', action: 'RETRY', attempts: 2 }],
      });
    },
  );

  it('a success is not deduplicated: the same undeclared call twice runs twice', async () => {
    provider.reset([
      toolCall('search', { q: 'refunds' }),
      toolCall('search', { q: 'refunds' }),
      text('done'),
    ]);
    let runs = 0;
    const recovery = createRecovery({ runId: 'run-u3' });
    await generateText({
      model: chat(),
      prompt: 'Search',
      tools: recovery.tools({
        search: tool({
          inputSchema: z.object({ q: z.string() }),
          execute: async () => `result ${++runs}`,
        }),
      }),
      stopWhen: [isStepCount(5), recovery.stopWhen],
    });
    expect(provider.toolResults().map((r) => r.output)).toEqual(['result 1', 'result 2']);
  });
});

describe('declaring side effects', () => {
  function rateTool(calls: string[]) {
    return tool({
      inputSchema: z.object({ currency: z.string() }),
      execute: async ({ currency }) => {
        calls.push(currency);
        if (calls.length === 1) throw httpFailure(504);
        return `${currency} 1.08`;
      },
    });
  }

  it('defaultPolicy { sideEffects: false }: every tool is a read, so a 504 is retried', async () => {
    provider.reset([toolCall('get_rate', { currency: 'EUR' }), text('done')]);
    const calls: string[] = [];
    const events: RecoveryEvent[] = [];
    const clock = createFakeClock();
    const recovery = createRecovery({
      runId: 'run-d1',
      defaultPolicy: { sideEffects: false },
      clock,
      onEvent: (event) => events.push(event),
    });
    await driveClock(
      clock,
      generateText({
        model: chat(),
        prompt: 'Rate?',
        tools: recovery.tools({ get_rate: rateTool(calls) }),
        stopWhen: [isStepCount(5), recovery.stopWhen],
      }),
    );
    expect(calls).toEqual(['EUR', 'EUR']);
    expect(provider.toolResults().map((r) => r.output)).toEqual(['EUR 1.08']);
    // A setting that comes from defaultPolicy counts as declared.
    expect(events.some((e) => e.type === 'policy.undeclared')).toBe(false);
  });

  it("a tool's own policy overrides defaultPolicy: its 504 is not re-sent", async () => {
    provider.reset([toolCall('get_rate', { currency: 'EUR' }), text('done')]);
    const calls: string[] = [];
    const recovery = createRecovery({
      runId: 'run-d2',
      defaultPolicy: { sideEffects: false },
      policies: { get_rate: { sideEffects: true } },
    });
    const result = await generateText({
      model: chat(),
      prompt: 'Rate?',
      tools: recovery.tools({ get_rate: rateTool(calls) }),
      stopWhen: [isStepCount(5), recovery.stopWhen],
    });
    expect(calls).toEqual(['EUR']);
    expect(failureIn(result.steps[0]).contract).toMatchObject({
      failure_class: 'UNKNOWN_OUTCOME',
      code: 'RECONCILE_BY_HAND',
    });
  });

  it('one policy.undeclared event per undeclared tool, at its first call', async () => {
    provider.reset([
      [toolCall('search', { q: 'a' }), toolCall('notify', { to: 'ops' })],
      [toolCall('search', { q: 'b' }), toolCall('notify', { to: 'dev' }), toolCall('lookup', {})],
      text('done'),
    ]);
    const events: RecoveryEvent[] = [];
    const recovery = createRecovery({
      runId: 'run-d3',
      policies: { lookup: { sideEffects: false } },
      onEvent: (event) => events.push(event),
    });
    const plain = () =>
      tool({ inputSchema: z.object({}).passthrough(), execute: async () => 'ok' });
    await generateText({
      model: chat(),
      prompt: 'Go',
      tools: recovery.tools({ search: plain(), notify: plain(), lookup: plain() }),
      stopWhen: [isStepCount(5), recovery.stopWhen],
    });
    const undeclared = events.filter((e) => e.type === 'policy.undeclared');
    expect(undeclared.map((e) => e.tool).sort()).toEqual(['notify', 'search']);
    for (const event of undeclared) {
      expect(event).toEqual({
        type: 'policy.undeclared',
        runId: 'run-d3',
        tool: event.tool,
        at: expect.any(Number),
      });
    }
  });
});

describe('MCP annotations', () => {
  it('readOnlyHint: true counts as a read (retried); a tool without annotations may write (not re-sent)', async () => {
    const calls: string[] = [];
    const flaky = (name: string) => () => {
      calls.push(name);
      return calls.filter((c) => c === name).length === 1
        ? { text: '504 Gateway Timeout', isError: true }
        : { text: `${name} ok` };
    };
    const client = await createMCPClient({
      transport: createInProcessMcpTransport([
        {
          name: 'read_status',
          inputSchema: { type: 'object', properties: {} },
          annotations: { readOnlyHint: true },
          call: flaky('read_status'),
        },
        {
          name: 'post_comment',
          inputSchema: { type: 'object', properties: { body: { type: 'string' } } },
          call: flaky('post_comment'),
        },
      ]),
    });
    provider.reset([
      toolCall('read_status', {}),
      toolCall('post_comment', { body: 'hi' }),
      toolCall('post_comment', { body: 'hi' }),
      text('done'),
    ]);
    const events: RecoveryEvent[] = [];
    const clock = createFakeClock();
    const recovery = createRecovery({
      runId: 'run-m1',
      clock,
      onEvent: (event) => events.push(event),
    });
    await driveClock(
      clock,
      generateText({
        model: chat(),
        prompt: 'Status, then comment',
        tools: recovery.tools(await client.tools()),
        stopWhen: isStepCount(6),
      }),
    );
    await client.close();

    expect(calls).toEqual(['read_status', 'read_status', 'post_comment']);
    expect(recovery.runtime.policyFor('read_status')).toMatchObject({ sideEffects: false });
    const [status, comment, again] = provider.toolResults().map((r) => r.output);
    expect(status).toContain('read_status ok');
    expect(readContract(comment!)).toMatchObject({
      failure_class: 'UNKNOWN_OUTCOME',
      retry_same_action: false,
    });
    expect(readContract(again!)).toMatchObject({ retry_same_action: false });
    expect(
      events.filter((e) => e.type === 'policy.undeclared').map((e) => 'tool' in e && e.tool),
    ).toEqual(['post_comment']);
  });
});
