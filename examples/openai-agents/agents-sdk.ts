import { Agent, run } from '@openai/agents';
import { createRecovery, shellResources, tool, urlResource } from '@recourse/openai-agents';
import { text, toolCall } from '@recourse/testing';
import { z } from 'zod';
import { useAgentsModel } from '../shared/agents-model.js';
import { createPaymentProvider, httpError } from '../shared/downstream.js';
import { createTrace, type Log, type Observer } from '../shared/trace.js';

/** The refund through the OpenAI Agents SDK: the response is lost, `reconcile` finds it. */
export async function runAgentsRefundExample(log: Log = console.log, observe?: Observer) {
  const payments = createPaymentProvider({ loseResponses: 1 });
  const { model, close } = useAgentsModel([
    toolCall('refund_payment', { paymentId: 'p-42', amount: 100 }),
    toolCall('refund_payment', { paymentId: 'p-42', amount: 100 }),
    text('Payment p-42 was refunded once (100).'),
  ]);
  const trace = createTrace(log, observe);
  const recovery = createRecovery({
    runId: 'run-agents-1',
    onEvent: trace.onEvent,
    policies: {
      refund_payment: {
        sideEffects: true,
        reconcile: async (_input, { idempotencyKey }) =>
          (await payments.findByKey(idempotencyKey))
            ? { happened: true, result: { status: 'refunded' } }
            : { happened: false },
      },
    },
  });
  const agent = new Agent({
    name: 'payments',
    instructions: 'Refund what the user asks for.',
    model,
    tools: recovery.tools([
      tool({
        name: 'refund_payment',
        description: 'Refund a payment',
        parameters: z.object({ paymentId: z.string(), amount: z.number() }),
        execute: ({ paymentId, amount }) => payments.refund(paymentId, amount),
      }),
    ]),
    toolUseBehavior: recovery.toolUseBehavior,
  });
  try {
    const result = await run(agent, 'Refund payment p-42 for 100.');
    trace.printOutcome(recovery.outcome());
    log(
      `downstream: ${payments.refunds.length} refund(s) under ${new Set(payments.requests).size} idempotency key(s)`,
    );
    return {
      outcome: recovery.outcome(),
      refunds: payments.refunds,
      finalOutput: result.finalOutput,
    };
  } finally {
    close();
  }
}

/** A 403 on a private repository, then a shell bypass in the same turn: blocked, BLOCKED. */
export async function runAgentsGithubExample(log: Log = console.log, observe?: Observer) {
  const executed: string[] = [];
  const { model, close } = useAgentsModel([
    [
      toolCall('github_api', { repo: 'acme/secret', path: 'README.md' }),
      toolCall('shell', { command: "bash -c 'git clone git@github.com:ACME/Secret.git'" }),
    ],
    text('never asked: the run ends after that turn'),
  ]);
  const trace = createTrace(log, observe);
  const recovery = createRecovery({
    runId: 'run-agents-2',
    onEvent: trace.onEvent,
    policies: {
      github_api: {
        sideEffects: false,
        resource: (i: { repo: string }) => urlResource(`https://github.com/${i.repo}`),
      },
      shell: { sideEffects: true, resource: (i: { command: string }) => shellResources(i.command) },
    },
  });
  const agent = new Agent({
    name: 'engineer',
    model,
    tools: recovery.tools([
      tool({
        name: 'github_api',
        description: 'Read a file from a GitHub repository through the API',
        parameters: z.object({ repo: z.string(), path: z.string() }),
        execute: async ({ repo }): Promise<string> => {
          executed.push(`github_api ${repo}`);
          throw httpError(403, `Resource not accessible by integration: ${repo}`);
        },
      }),
      tool({
        name: 'shell',
        description: 'Run a shell command',
        parameters: z.object({ command: z.string() }),
        execute: ({ command }) => {
          executed.push(`shell ${command}`);
          return 'cloned';
        },
      }),
    ]),
    toolUseBehavior: recovery.toolUseBehavior, // ends the run once recourse stops it
  });
  try {
    const result = await run(agent, 'Summarise the README of acme/secret.');
    trace.printOutcome(recovery.outcome());
    log(`executed: ${executed.join('; ')}`);
    return { outcome: recovery.outcome(), executed, finalOutput: result.finalOutput };
  } finally {
    close();
  }
}

/** A 422 naming the field: the model repairs the call and the customer is created. */
export async function runAgentsRepairExample(log: Log = console.log, observe?: Observer) {
  const created: string[] = [];
  const { model, close } = useAgentsModel([
    toolCall('create_customer', { name: 'Ada Lovelace', email: 'ada' }),
    toolCall('create_customer', { name: 'Ada Lovelace', email: 'ada@example.com' }),
    text('Ada Lovelace is a customer now.'),
  ]);
  const trace = createTrace(log, observe, { guidance: true });
  const recovery = createRecovery({
    runId: 'run-agents-3',
    onEvent: trace.onEvent,
    policies: { create_customer: { sideEffects: true, idempotent: true } },
  });
  const agent = new Agent({
    name: 'crm',
    model,
    tools: recovery.tools([
      tool({
        name: 'create_customer',
        description: 'Create a customer',
        parameters: z.object({ name: z.string(), email: z.string() }),
        execute: ({ name, email }) => {
          if (!email.includes('@'))
            throw Object.assign(httpError(422, 'email must be an email address'), {
              param: 'email',
            });
          created.push(name);
          return { id: 'cus_1', name, email };
        },
      }),
    ]),
    toolUseBehavior: recovery.toolUseBehavior,
  });
  try {
    const result = await run(agent, 'Add Ada Lovelace, ada, as a customer.');
    trace.printOutcome(recovery.outcome());
    return { outcome: recovery.outcome(), created, finalOutput: result.finalOutput };
  } finally {
    close();
  }
}
