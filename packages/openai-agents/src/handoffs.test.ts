import { Agent, run } from '@openai/agents';
import { text, toolCall } from '@recourse/testing';
import { expect, it } from 'vitest';
import { createRecovery, tool } from './index.js';
import { useAgentsHarness } from './test-support/agents.js';
import { policies } from './test-support/policies.js';
import { agentTools } from './test-support/tools.js';

const harness = useAgentsHarness();
const { services } = harness;

/** A triage agent that hands off to a refunds agent: one run, one recovery for both. */
function agents() {
  const recovery = createRecovery({
    runId: 'run-handoff',
    policies,
    warn: false,
    retry: { baseDelayMs: 0 },
  });
  const all = agentTools(services, tool);
  const refunds = new Agent({
    name: 'refunds',
    model: 'gpt-4o',
    tools: recovery.tools([all.refund_payment, all.github_repo, all.shell]),
    toolUseBehavior: recovery.toolUseBehavior,
  });
  const triage = new Agent({
    name: 'triage',
    model: 'gpt-4o',
    tools: recovery.tools([all.payments_status]),
    handoffs: [refunds],
    toolUseBehavior: recovery.toolUseBehavior,
  });
  return { recovery, triage };
}

const refund = { paymentId: 'p-42', amount: 100 };

it('across a handoff: one recovery, the refund reconciled once, one outcome for the run', async () => {
  const { recovery, triage } = agents();
  services.loseNextResponse = true;
  harness.script([
    toolCall('payments_status', {}), // triage: a 503, retried inside the call
    toolCall('transfer_to_refunds', {}),
    toolCall('refund_payment', refund), // refunds agent: lands, the response is lost
    toolCall('refund_payment', refund),
    text('Refunded.'),
  ]);
  const result = await run(triage, 'Refund p-42');

  expect(result.lastAgent?.name).toBe('refunds');
  expect(result.finalOutput).toBe('Refunded.');
  expect(services.refunds).toHaveLength(1);
  expect(recovery.outcome()).toMatchObject({
    status: 'COMPLETED',
    completed_steps: ['payments_status', 'refund_payment'],
    recoveries: [
      { tool: 'payments_status', action: 'RETRY' },
      { tool: 'refund_payment', action: 'RECONCILE' },
    ],
  });
});

it('a denial after the handoff ends the whole run BLOCKED, through the second agent', async () => {
  const { recovery, triage } = agents();
  harness.script([
    toolCall('transfer_to_refunds', {}),
    toolCall('github_repo', { repo: 'acme/secret' }),
    toolCall('shell', { command: 'git clone git@github.com:acme/secret.git' }),
    text('never asked'),
  ]);
  const result = await run(triage, 'Look at acme/secret');

  expect(harness.provider.requests).toHaveLength(2);
  expect(services.githubRequests).toEqual(['acme/secret']);
  expect(recovery.outcome().status).toBe('BLOCKED');
  expect(result.finalOutput).toBe(recovery.outcome().summary);
});
