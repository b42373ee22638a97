import { Agent, RunState, run } from '@openai/agents';
import { deriveIdempotencyKey } from '@recourse/core';
import { text, toolCall } from '@recourse/testing';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { callContext, createRecovery, MemoryLedger, tool } from './index.js';
import { useAgentsHarness } from './test-support/agents.js';
import { policies } from './test-support/policies.js';
import { postRefund } from './test-support/services.js';
import { agentTools } from './test-support/tools.js';

const harness = useAgentsHarness();
const { services } = harness;
const refund = { paymentId: 'p-42', amount: 100 };

/** One process's agent: a recovery of run `run-77` on the shared ledger, the refund needs approval. */
function processAgent(ledger: MemoryLedger) {
  const recovery = createRecovery({ runId: 'run-77', ledger, policies, warn: false });
  const refundTool = tool({
    name: 'refund_payment',
    description: 'Refund a payment',
    parameters: z.object({ paymentId: z.string(), amount: z.number() }),
    needsApproval: true, // the SDK's own approval: the run pauses with an interruption
    execute: (input) => postRefund(services, input, callContext().idempotencyKey),
  });
  const agent = new Agent({
    name: 'payments',
    model: 'gpt-4o',
    tools: recovery.tools([refundTool]),
    toolUseBehavior: recovery.toolUseBehavior,
  });
  return { recovery, agent };
}

it('an approval pauses the run; the resumed RunState, in a new process, sends the refund under the same key once', async () => {
  const ledger = new MemoryLedger(); // the run's durable store, shared by both processes
  harness.script([toolCall('refund_payment', refund), text('Refunded.'), text('Refunded.')]);

  // Process 1: the model asks for the refund; the SDK pauses for an operator.
  const first = processAgent(ledger);
  const paused = await run(first.agent, 'Refund p-42');
  expect(paused.interruptions.map((item) => item.name)).toEqual(['refund_payment']);
  expect(services.refundRequests).toEqual([]);
  const saved = paused.state.toString();

  // Process 2: the operator approves; the run resumes from the saved state.
  const second = processAgent(ledger);
  const state = await RunState.fromString(second.agent, saved);
  for (const item of state.getInterruptions()) state.approve(item);
  const resumed = await run(second.agent, state);

  const key = deriveIdempotencyKey({ runId: 'run-77', toolName: 'refund_payment', input: refund });
  expect(resumed.finalOutput).toBe('Refunded.');
  expect(services.refunds).toEqual([{ ...refund, key }]);
  expect(second.recovery.outcome()).toMatchObject({
    status: 'COMPLETED',
    completed_steps: ['refund_payment'],
  });

  // Process 3: the same saved state resumed again (process 2 died before it saved anything):
  // the approved call is answered from the ledger, nothing is sent.
  const third = processAgent(ledger);
  const again = await RunState.fromString(third.agent, saved);
  for (const item of again.getInterruptions()) again.approve(item);
  await run(third.agent, again);
  expect(services.refundRequests).toEqual([{ paymentId: 'p-42', key }]);
});

it("escalation: 'approval' — a call outside the scope pauses the run for a person instead of a refusal; approved in a new process, it runs once", async () => {
  const ledger = new MemoryLedger();
  const processAgent = () => {
    const recovery = createRecovery({
      runId: 'run-88',
      ledger,
      policies,
      scope: { deny: ['https://github.com/acme/vault'] },
      onDenial: 'continue',
      escalation: 'approval',
      warn: false,
    });
    const all = agentTools(services, tool);
    const agent = new Agent({
      name: 'engineer',
      model: 'gpt-4o',
      tools: recovery.tools([all.github_repo]),
      toolUseBehavior: recovery.toolUseBehavior,
    });
    return { recovery, agent };
  };
  harness.script([toolCall('github_repo', { repo: 'acme/vault' }), text('Read it.')]);

  // Process 1: recourse would refuse the call; it asks a person through the SDK instead.
  const first = processAgent();
  const paused = await run(first.agent, 'Read acme/vault');
  expect(paused.interruptions.map((item) => item.name)).toEqual(['github_repo']);
  expect(services.githubRequests).toEqual([]);
  expect(first.recovery.outcome().blocked).toMatchObject([
    {
      tool: 'github_repo',
      resource: 'https://github.com/acme/vault',
      reason: 'APPROVAL_REQUESTED',
    },
  ]);

  // Process 2: the operator approves; the approval becomes the run's grant, the call runs.
  const second = processAgent();
  const state = await RunState.fromString(second.agent, paused.state.toString());
  for (const item of state.getInterruptions()) state.approve(item);
  const resumed = await run(second.agent, state);

  expect(resumed.finalOutput).toBe('Read it.');
  expect(services.githubRequests).toEqual(['acme/vault']);
  expect(harness.toolOutputs()).toEqual([['call_1', JSON.stringify({ name: 'vault' })]]);
  expect(second.recovery.outcome().status).toBe('COMPLETED');
});
