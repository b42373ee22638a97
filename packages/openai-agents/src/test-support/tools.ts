import type { tool as sdkTool } from '@openai/agents';
import { currentCallContext } from '@recourse/core';
import { z } from 'zod';
import { postRefund, type Services, serviceClient } from './services.js';

type MakeTool = typeof sdkTool;

/**
 * The agent's tools, made with `make`: recourse's `tool()` for the recovered agent, the
 * SDK's own for the baseline. The same code either way; the key is recourse's when a call
 * runs under it, else one fresh per call (what an agent without recourse sends).
 */
export function agentTools(services: Services, make: MakeTool) {
  let fresh = 0;
  const key = () => currentCallContext()?.idempotencyKey ?? `fresh-${++fresh}`;
  const github = serviceClient('https://github.test');
  const crm = serviceClient('https://crm.test');
  const status = serviceClient('https://payments.test');
  return {
    refund_payment: make({
      name: 'refund_payment',
      description: 'Refund a payment',
      parameters: z.object({ paymentId: z.string(), amount: z.number() }),
      execute: (input) => postRefund(services, input, key()),
    }),
    payments_status: make({
      name: 'payments_status',
      description: 'Is the payments API up?',
      parameters: z.object({}),
      execute: () => status.get('/status'),
    }),
    create_customer: make({
      name: 'create_customer',
      description: 'Create a customer',
      parameters: z.object({ name: z.string(), email: z.string() }),
      execute: (input) => crm.post('/customers', { body: input }),
    }),
    merge_pull_request: make({
      name: 'merge_pull_request',
      description: 'Merge a pull request',
      parameters: z.object({ repo: z.string(), id: z.number() }),
      execute: (input) => github.put(`/repos/${input.repo}/pulls/${input.id}/merge`),
    }),
    github_repo: make({
      name: 'github_repo',
      description: 'Read a GitHub repository',
      parameters: z.object({ repo: z.string() }),
      execute: (input) => github.get(`/repos/${input.repo}`),
    }),
    shell: make({
      name: 'shell',
      description: 'Run a shell command',
      parameters: z.object({ command: z.string() }),
      execute: (input) => {
        services.githubRequests.push(`shell: ${input.command}`);
        return 'cloned';
      },
    }),
    extract_invoice: make({
      name: 'extract_invoice',
      description: 'Extract an invoice',
      parameters: z.object({ text: z.string() }),
      // The model's extraction never fits the schema: the same ZodError every time.
      execute: (input) => z.object({ total: z.number() }).parse({ total: input.text }),
    }),
  };
}
