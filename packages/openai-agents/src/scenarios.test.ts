import { Agent, run, tool as sdkTool } from '@openai/agents';
import { text, toolCall } from '@recourse/testing';
import { describe, expect, it } from 'vitest';
import { createRecovery, tool, toolCallFailureOf } from './index.js';
import { report, useAgentsHarness } from './test-support/agents.js';
import { policies } from './test-support/policies.js';
import { agentTools } from './test-support/tools.js';

const harness = useAgentsHarness();
const { services } = harness;

type ToolName = keyof ReturnType<typeof agentTools>;

/** An agent under recourse with the named tools, and its recovery. */
function recovered(names: ToolName[], options: { onDenial?: 'stop' | 'continue' } = {}) {
  const recovery = createRecovery({
    runId: 'run-1842',
    retry: { baseDelayMs: 0 }, // backoff without waiting
    policies,
    warn: false,
    ...options,
  });
  const all = agentTools(services, tool);
  const agent = new Agent({
    name: 'assistant',
    instructions: 'Help the user.',
    model: 'gpt-4o',
    tools: recovery.tools(names.map((name) => all[name])),
    toolUseBehavior: recovery.toolUseBehavior,
  });
  return { recovery, agent };
}

/** The same agent without recourse: the SDK's own tool(), its default error handling. */
function baseline(names: ToolName[]) {
  const all = agentTools(services, sdkTool);
  return new Agent({
    name: 'assistant',
    instructions: 'Help the user.',
    model: 'gpt-4o',
    tools: names.map((name) => all[name]),
  });
}

const sdkSentence = 'An error occurred while running the tool. Please try again.';

describe('a timed-out refund', () => {
  const script = () => [
    toolCall('refund_payment', { paymentId: 'p-42', amount: 100 }), // lands, the response is lost
    toolCall('refund_payment', { paymentId: 'p-42', amount: 100 }), // the model asks again
    text('Refunded.'),
  ];

  it('is reconciled and applied once, every request under one key', async () => {
    const { recovery, agent } = recovered(['refund_payment']);
    services.loseNextResponse = true;
    harness.script(script());
    const result = await run(agent, 'Refund p-42');

    expect(services.refunds).toHaveLength(1);
    expect(services.refundRequests).toHaveLength(1);
    expect(services.refunds[0]?.key).toMatch(/^run-1842:refund_payment:/);
    expect(harness.toolOutputs()).toEqual([
      ['call_1', 'refunded'],
      ['call_2', 'refunded'],
    ]);
    expect(result.finalOutput).toBe('Refunded.');
    expect(recovery.outcome()).toMatchObject({
      status: 'COMPLETED',
      completed_steps: ['refund_payment'],
      recoveries: [{ tool: 'refund_payment', code: 'TIMEOUT', action: 'RECONCILE' }],
    });
  });

  it('baseline (the SDK alone): the model is told to try again and the refund lands twice', async () => {
    services.loseNextResponse = true;
    harness.script(script());
    await run(baseline(['refund_payment']), 'Refund p-42');

    expect(harness.toolOutputs()[0]).toEqual(['call_1', sdkSentence]);
    expect(services.refunds).toHaveLength(2);
    report('timed-out refund, SDK alone', {
      refunds: services.refunds.length,
      duplicates: services.refunds.length - 1,
    });
  });
});

describe('a 503 on a read', () => {
  const script = () => [toolCall('payments_status', {}), text('The API is up.')];

  it('is retried inside the call: the model sees only the answer', async () => {
    const { recovery, agent } = recovered(['payments_status']);
    harness.script(script());
    await run(agent, 'Is the payments API up?');

    expect(services.statusRequests).toBe(2);
    expect(harness.toolOutputs()).toEqual([['call_1', JSON.stringify({ status: 'operational' })]]);
    expect(harness.provider.requests).toHaveLength(2);
    expect(recovery.outcome().recoveries).toMatchObject([
      { tool: 'payments_status', failure_class: 'TRANSIENT', action: 'RETRY', attempts: 2 },
    ]);
  });

  it('baseline: the model gets the fixed sentence and must retry itself', async () => {
    harness.script(script());
    await run(baseline(['payments_status']), 'Is the payments API up?');
    expect(harness.toolOutputs()).toEqual([['call_1', sdkSentence]]);
  });
});

describe('a 422', () => {
  const script = () => [
    toolCall('create_customer', { name: 'Ada', email: 'ada' }),
    toolCall('create_customer', { name: 'Ada', email: 'ada@example.com' }),
    text('Created.'),
  ];

  it('is repaired through the model: the contract names the field, the fixed call runs', async () => {
    const { recovery, agent } = recovered(['create_customer']);
    harness.script(script());
    const result = await run(agent, 'Add Ada');

    expect(harness.contract('call_1')).toMatchObject({
      failure_class: 'VALIDATION',
      recommended_recovery: 'REPAIR',
      retry_same_action: false,
      invalid_field: 'email',
    });
    // The run's item keeps the original error for the application.
    const failed = result.newItems.find((item) => item.type === 'tool_call_output_item');
    expect(toolCallFailureOf(failed?.output)?.cause).toMatchObject({ status: 422 });
    expect(harness.toolOutputs()[1]?.[1]).toContain('cus_1');
    expect(services.crmRequests).toHaveLength(2);
    expect(recovery.outcome().status).toBe('COMPLETED');
  });

  it('baseline: the model is not told which field was wrong', async () => {
    harness.script(script());
    await run(baseline(['create_customer']), 'Add Ada');
    expect(harness.toolOutputs()[0]).toEqual(['call_1', sdkSentence]);
  });
});

describe('a 412', () => {
  it('is answered with REOBSERVE; the write is not re-sent by the library', async () => {
    const { agent } = recovered(['merge_pull_request']);
    harness.script([
      toolCall('merge_pull_request', { repo: 'acme/app', id: 7 }),
      text('Re-reading.'),
    ]);
    await run(agent, 'Merge PR 7');

    expect(harness.contract('call_1')).toMatchObject({
      failure_class: 'STALE_STATE',
      recommended_recovery: 'REOBSERVE',
      retry_same_action: false,
    });
    expect(services.mergeRequests).toBe(1);
  });

  it('baseline: the model is told to try again and re-sends the merge without re-reading', async () => {
    const merge = () => toolCall('merge_pull_request', { repo: 'acme/app', id: 7 });
    harness.script([merge(), merge(), text('Tried twice.')]);
    await run(baseline(['merge_pull_request']), 'Merge PR 7');
    expect(harness.toolOutputs()[0]).toEqual(['call_1', sdkSentence]);
    expect(services.mergeRequests).toBe(2);
    report('412 on a merge, SDK alone', { stale_writes_resent: services.mergeRequests - 1 });
  });
});

describe('a 403', () => {
  const read = toolCall('github_repo', { repo: 'acme/secret' });
  const clone = toolCall('shell', { command: 'git clone https://github.com/ACME/Secret' });

  it('blocks the shell bypass of the same turn and ends the run BLOCKED', async () => {
    const { recovery, agent } = recovered(['github_repo', 'shell']);
    harness.script([[read, clone], text('never asked')]);
    const result = await run(agent, 'Read acme/secret');

    expect(services.githubRequests).toEqual(['acme/secret']); // the shell never ran
    expect(harness.contract('call_1', result)).toMatchObject({
      failure_class: 'AUTHORIZATION',
      status: 'BLOCKED',
    });
    expect(harness.contract('call_2', result)).toMatchObject({
      status: 'BLOCKED',
      retry_same_action: false,
    });
    expect(harness.provider.requests).toHaveLength(1); // the run ended after the turn
    expect(recovery.outcome()).toMatchObject({ status: 'BLOCKED' });
    expect(result.finalOutput).toBe(recovery.outcome().summary);
  });

  it('blocks a bypass in a later turn when the agent goes on (no stop rule): it never runs', async () => {
    const recovery = createRecovery({ runId: 'run-9', policies, warn: false });
    const all = agentTools(services, tool);
    const agent = new Agent({
      name: 'assistant',
      model: 'gpt-4o',
      tools: recovery.tools([all.github_repo, all.shell]),
    });
    harness.script([read, clone, text('gave up')]);
    await run(agent, 'Read acme/secret');

    expect(services.githubRequests).toEqual(['acme/secret']);
    expect(harness.contract('call_2')).toMatchObject({ status: 'BLOCKED' });
    expect(recovery.outcome().status).toBe('BLOCKED');
  });

  it('baseline: the shell route runs', async () => {
    harness.script([read, clone, text('cloned it')]);
    await run(baseline(['github_repo', 'shell']), 'Read acme/secret');
    expect(services.githubRequests).toEqual([
      'acme/secret',
      'shell: git clone https://github.com/ACME/Secret',
    ]);
    report('403 then a shell bypass, SDK alone', { bypasses_run: 1 });
  });
});

describe('a poison step', () => {
  const bad = () => toolCall('extract_invoice', { text: 'twelve' });

  it('stops the loop once the repair budget is spent', async () => {
    const { recovery, agent } = recovered(['extract_invoice']);
    harness.script([bad(), bad(), bad(), bad(), text('never asked')]);
    const result = await run(agent, 'Extract the invoice');

    expect(harness.provider.requests).toHaveLength(3);
    expect(harness.contract('call_3', result)).toMatchObject({
      recommended_recovery: 'ABORT',
      code: 'POISON',
    });
    expect(recovery.outcome()).toMatchObject({ status: 'FAILED' });
    expect(result.finalOutput).toBe(recovery.outcome().summary);
  });

  it('baseline: the loop goes on until maxTurns', async () => {
    harness.script([bad()]);
    harness.provider.reset([bad(), bad(), bad(), bad(), bad(), bad()]);
    await expect(
      run(baseline(['extract_invoice']), 'Extract the invoice', { maxTurns: 5 }),
    ).rejects.toThrow(/max turns/i);
    report('poison step, SDK alone', { model_turns: harness.provider.requests.length });
  });
});

describe('two workers of one run', () => {
  it('baseline (the SDK alone; recourse on one PostgreSQL ledger is workers.test.ts): both send the refund', async () => {
    const turn = (request: { toolResults: readonly unknown[] }) =>
      request.toolResults.length > 0
        ? text('Refunded.')
        : toolCall('refund_payment', { paymentId: 'p-42', amount: 100 });
    harness.script([turn, turn, turn, turn]);
    await Promise.all([
      run(baseline(['refund_payment']), 'Refund p-42'),
      run(baseline(['refund_payment']), 'Refund p-42'),
    ]);
    expect(services.refunds).toHaveLength(2);
    report('two workers, SDK alone', { refunds: 2, duplicates: services.refunds.length - 1 });
  });
});
