import {
  callContext,
  createRecovery,
  recoveryContractOf,
  toolCallFailureOf,
} from '@recourse/langchain';
import { callService, type ProviderRequest, text, toolCall } from '@recourse/testing';
import { createAgent, tool } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { githubPolicies, githubTools } from '../test-support/github.js';
import { systemTextOf, toolOutputs, useScriptedProvider } from '../test-support/harness.js';
import { scriptedEndpoint } from '../test-support/service.js';

const { provider, model, use } = useScriptedProvider();
const prompt = (content: string) => ({ messages: [{ role: 'user' as const, content }] });
const lastOutput = (request: ProviderRequest) => request.toolResults.at(-1)?.output ?? '';

const getPayment = tool(
  async ({ paymentId }) => callService('GET', `https://payments.test/payments/${paymentId}`),
  {
    name: 'get_payment',
    description: 'Read a payment',
    schema: z.object({ paymentId: z.string() }),
  },
);

const refundPayment = tool(
  async (input) =>
    callService('POST', 'https://payments.test/refunds', input, {
      idempotencyKey: callContext().idempotencyKey,
    }),
  {
    name: 'refund_payment',
    description: 'Refund a payment',
    schema: z.object({ paymentId: z.string(), amount: z.number() }),
  },
);

describe('failures through createAgent', () => {
  it('a 503 on a read is retried inside the call: the model sees only the result', async () => {
    const payments = scriptedEndpoint(
      'get',
      'https://payments.test/payments/:id',
      [503, 'ok'],
      () => ({
        id: 'p-42',
        captured: 100,
      }),
    );
    use(payments.handler);
    provider.reset([toolCall('get_payment', { paymentId: 'p-42' }), text('captured 100')]);
    const recovery = createRecovery({
      runId: 'run-503',
      policies: { get_payment: { sideEffects: false } },
      retry: { baseDelayMs: 0 },
    });
    const agent = createAgent({
      model: model(),
      tools: [getPayment],
      middleware: [recovery.middleware],
    });

    await agent.invoke(prompt('How much was captured on p-42?'));

    expect(payments.requests).toHaveLength(2);
    expect(toolOutputs(provider)).toEqual([{ id: 'p-42', captured: 100 }]);
    expect(provider.requests).toHaveLength(2);
    expect(recovery.outcome()).toMatchObject({
      status: 'COMPLETED',
      recoveries: [
        { tool: 'get_payment', failure_class: 'TRANSIENT', action: 'RETRY', attempts: 2 },
      ],
    });
  });

  it('a 422 is repaired through the model: contract, guidance, then the fixed call', async () => {
    const refunds = scriptedEndpoint('post', 'https://payments.test/refunds', [422, 'ok'], () => ({
      status: 'refunded',
    }));
    use(refunds.handler);
    provider.reset([
      toolCall('refund_payment', { paymentId: 'p-42', amount: 1000 }),
      (request) =>
        JSON.parse(lastOutput(request)).recommended_recovery === 'REPAIR'
          ? toolCall('refund_payment', { paymentId: 'p-42', amount: 100 })
          : text('gave up'),
      text('refunded 100'),
    ]);
    const recovery = createRecovery({
      runId: 'run-422',
      policies: { refund_payment: { sideEffects: true } },
    });
    const agent = createAgent({
      model: model(),
      tools: [refundPayment],
      systemPrompt: 'You refund payments.',
      middleware: [recovery.middleware],
    });

    const result = await agent.invoke(prompt('Refund 1000 on p-42'));

    expect(refunds.requests.map((r) => (r.body as { amount: number }).amount)).toEqual([1000, 100]);
    const [failed] = toolOutputs(provider);
    expect(failed).toMatchObject({
      failure_class: 'VALIDATION',
      recommended_recovery: 'REPAIR',
      retry_same_action: false,
    });
    // The guidance reached the next model call's system prompt, after the user's own.
    expect(systemTextOf(provider, 1)).toMatch(/^You refund payments\.[\s\S]*\[recourse\]/);
    expect(systemTextOf(provider, 2)).not.toContain('[recourse]');
    const failedMessage = result.messages.find((m) => recoveryContractOf(m) !== undefined);
    expect(recoveryContractOf(failedMessage)).toMatchObject({ recommended_recovery: 'REPAIR' });
    // The original error stays with the application, in the artifact the model never sees.
    const cause = toolCallFailureOf((failedMessage as { artifact?: unknown }).artifact)?.cause;
    expect(cause).toMatchObject({ response: { status: 422 } });
    expect(recovery.outcome().status).toBe('COMPLETED');
  });

  it('a 412 is re-observed: the write is not re-sent, the model reads and merges at the new head', async () => {
    const merges = scriptedEndpoint('put', 'https://git.test/pulls/7/merge', [412, 'ok'], () => ({
      merged: true,
    }));
    const reads = scriptedEndpoint('get', 'https://git.test/pulls/7', ['ok'], () => ({
      head: 'def',
    }));
    use(merges.handler, reads.handler);
    const merge = tool(
      async ({ pr, head }) =>
        callService(
          'PUT',
          `https://git.test/pulls/${pr}/merge`,
          { sha: head },
          { idempotencyKey: callContext().idempotencyKey },
        ),
      {
        name: 'merge_pull_request',
        description: 'Merge a pull request at a head',
        schema: z.object({ pr: z.number(), head: z.string() }),
      },
    );
    const read = tool(async ({ pr }) => callService('GET', `https://git.test/pulls/${pr}`), {
      name: 'get_pull_request',
      description: 'Read a pull request',
      schema: z.object({ pr: z.number() }),
    });
    provider.reset([
      toolCall('merge_pull_request', { pr: 7, head: 'abc' }),
      toolCall('get_pull_request', { pr: 7 }),
      toolCall('merge_pull_request', { pr: 7, head: 'def' }),
      text('merged'),
    ]);
    const recovery = createRecovery({
      runId: 'run-412',
      policies: {
        merge_pull_request: { sideEffects: true },
        get_pull_request: { sideEffects: false },
      },
    });
    const agent = createAgent({
      model: model(),
      tools: [merge, read],
      middleware: [recovery.middleware],
    });

    await agent.invoke(prompt('Merge PR 7'));

    expect(merges.requests.map((r) => (r.body as { sha: string }).sha)).toEqual(['abc', 'def']);
    expect(toolOutputs(provider)[0]).toMatchObject({
      failure_class: 'STALE_STATE',
      recommended_recovery: 'REOBSERVE',
      retry_same_action: false,
    });
    expect(recovery.outcome().status).toBe('COMPLETED');
  });

  it('a step that fails the same way past the repair budget is poison: the loop stops', async () => {
    const refunds = scriptedEndpoint('post', 'https://payments.test/refunds', [422, 422, 422, 422]);
    use(refunds.handler);
    const same = toolCall('refund_payment', { paymentId: 'p-42', amount: 1000 });
    provider.reset([same, same, same, same, text('never asked')]);
    const recovery = createRecovery({
      runId: 'run-poison',
      policies: { refund_payment: { sideEffects: true } },
    });
    const agent = createAgent({
      model: model(),
      tools: [refundPayment],
      middleware: [recovery.middleware],
    });

    const result = await agent.invoke(prompt('Refund 1000 on p-42'));

    expect(refunds.requests).toHaveLength(3);
    expect(provider.requests).toHaveLength(3); // no model call after the poison step
    // The last answer is in the thread, never sent: the loop ended before the model.
    expect(recoveryContractOf(result.messages.at(-1))).toMatchObject({
      code: 'POISON',
      retry_same_action: false,
    });
    expect(recovery.isStopped()).toBe(true);
    expect(recovery.outcome()).toMatchObject({ status: 'FAILED', reason: 'POISON' });
  });
});

describe('a 403 through createAgent', () => {
  it('stops the run BLOCKED, and a later shell bypass on the same thread never runs', async () => {
    use(scriptedEndpoint('get', 'https://api.github.test/repos/*', [403]).handler);
    provider.reset([
      toolCall('github_api', { repo: 'acme/secret', path: 'README.md' }),
      toolCall('shell', { command: 'git clone git@github.com:acme/secret.git' }),
      text('never asked'),
    ]);
    const executed: string[] = [];
    const recovery = createRecovery({ runId: 'run-403', policies: githubPolicies });
    const agent = createAgent({
      model: model(),
      tools: githubTools(executed),
      middleware: [recovery.middleware],
    });

    const first = await agent.invoke(prompt('Summarise the README of acme/secret'));
    // The user insists: the thread goes on, but the run is over.
    await agent.invoke(prompt('Then clone it over SSH'));

    expect(executed).toEqual(['github_api acme/secret']);
    expect(provider.requests).toHaveLength(1);
    expect(recoveryContractOf(first.messages.at(-1))).toMatchObject({
      failure_class: 'AUTHORIZATION',
      recommended_recovery: 'ABORT',
      retry_same_action: false,
    });
    expect(recovery.outcome()).toMatchObject({
      status: 'BLOCKED',
      next_possible_action: expect.any(String),
    });
  });

  it('a shell bypass in the same response waits for the 403 and is refused', async () => {
    use(scriptedEndpoint('get', 'https://api.github.test/repos/*', [403]).handler);
    provider.reset([
      [
        toolCall('github_api', { repo: 'acme/secret', path: 'README.md' }),
        toolCall('shell', { command: 'git clone git@github.com:acme/secret.git' }),
      ],
      text('never asked'),
    ]);
    const executed: string[] = [];
    const recovery = createRecovery({ runId: 'run-403-turn', policies: githubPolicies });
    const agent = createAgent({
      model: model(),
      tools: githubTools(executed),
      middleware: [recovery.middleware],
    });

    const result = await agent.invoke(prompt('Summarise the README of acme/secret'));

    expect(executed).toEqual(['github_api acme/secret']);
    expect(provider.requests).toHaveLength(1);
    const answers = result.messages.map(recoveryContractOf).filter((c) => c !== undefined);
    expect(answers).toMatchObject([
      { failure_class: 'AUTHORIZATION', tool: 'github_api' },
      { status: 'BLOCKED', tool: 'shell', retry_same_action: false },
    ]);
    expect(recovery.outcome().status).toBe('BLOCKED');
  });

  it("with onDenial 'continue': the SSH clone and a re-cased curl are blocked, other work runs", async () => {
    use(scriptedEndpoint('get', 'https://api.github.test/repos/*', [403]).handler);
    provider.reset([
      toolCall('github_api', { repo: 'acme/secret', path: 'README.md' }),
      toolCall('shell', { command: 'git clone git@github.com:acme/secret.git' }),
      toolCall('shell', {
        command: "bash -c 'curl -s https://api.github.com/repos/ACME/Secret/contents/README.md'",
      }),
      toolCall('shell', { command: 'ls /tmp' }),
      text('access denied; an operator is needed'),
    ]);
    const executed: string[] = [];
    const recovery = createRecovery({
      runId: 'run-403-continue',
      policies: githubPolicies,
      onDenial: 'continue',
    });
    const agent = createAgent({
      model: model(),
      tools: githubTools(executed),
      middleware: [recovery.middleware],
    });

    await agent.invoke(prompt('Summarise the README of acme/secret'));

    expect(executed).toEqual(['github_api acme/secret', 'shell ls /tmp']);
    const outputs = toolOutputs(provider);
    expect(outputs[1]).toMatchObject({ status: 'BLOCKED', retry_same_action: false });
    expect(outputs[2]).toMatchObject({ status: 'BLOCKED', retry_same_action: false });
    expect(outputs[3]).toBe('ok');
    // The run went on around the denial: what it could not reach is missing, not hidden.
    expect(recovery.outcome()).toMatchObject({ status: 'PARTIAL_RESULT' });
  });
});
