import {
  callContext,
  createRecovery,
  type Outcome,
  shellResources,
  urlResource,
} from '@recourse/langchain';
import { text, toolCall } from '@recourse/testing';
import { createAgent, tool } from 'langchain';
import { z } from 'zod';
import { createPaymentProvider, httpError } from '../shared/downstream.js';
import { createTrace, type Log, type Observer } from '../shared/trace.js';
import { createExampleChatModel } from './model.js';

const refundSchema = z.object({ paymentId: z.string(), amount: z.number().positive() });
const ask = (content: string) => ({ messages: [{ role: 'user' as const, content }] });

/** The refund lands, its response is lost; `reconcile` finds it: one refund under one key. */
export async function runLangChainRefundExample(log: Log = console.log, observe?: Observer) {
  const payments = createPaymentProvider({ loseResponses: 1 });
  const { model, close } = createExampleChatModel([
    toolCall('refund_payment', { paymentId: 'p-42', amount: 100 }),
    toolCall('refund_payment', { paymentId: 'p-42', amount: 100 }), // the model asks again
    text('Payment p-42 was refunded once (100).'),
  ]);
  const trace = createTrace(log, observe);
  const recovery = createRecovery({
    runId: 'run-lc-1842',
    onEvent: trace.onEvent,
    policies: {
      refund_payment: {
        sideEffects: true,
        reconcile: async (_input, { idempotencyKey }) =>
          (await payments.findByKey(idempotencyKey))
            ? { happened: true, result: 'refunded' }
            : { happened: false },
      },
    },
  });
  const refund = tool(
    async ({ paymentId, amount }) => JSON.stringify(await payments.refund(paymentId, amount)),
    { name: 'refund_payment', description: 'Refund a payment', schema: refundSchema },
  );
  try {
    const agent = createAgent({ model, tools: [refund], middleware: [recovery.middleware] });
    await agent.invoke(ask('Refund payment p-42 for 100.'));
    return finish(recovery.outcome(), trace, log, {
      refunds: payments.refunds,
      requests: payments.requests,
    });
  } finally {
    close();
  }
}

/**
 * A 403 on a private repository and, in the same response, an SSH clone of it: the clone
 * waits for the 403 and is refused before it runs; the run ends BLOCKED.
 */
export async function runLangChainGithubExample(log: Log = console.log, observe?: Observer) {
  const executed: string[] = [];
  const { model, close } = createExampleChatModel([
    [
      toolCall('github_api', { repo: 'acme/secret', path: 'README.md' }),
      toolCall('shell', { command: 'git clone git@github.com:acme/secret.git /tmp/secret' }),
    ],
    text('never asked: the run is over'),
  ]);
  const trace = createTrace(log, observe);
  const recovery = createRecovery({
    runId: 'run-lc-github-7',
    onEvent: trace.onEvent,
    policies: {
      github_api: {
        sideEffects: false,
        resource: (i: { repo: string }) => urlResource(`https://github.com/${i.repo}`),
      },
      shell: { sideEffects: true, resource: (i: { command: string }) => shellResources(i.command) },
    },
  });
  const tools = [
    tool(
      async ({ repo }): Promise<string> => {
        executed.push(`github_api ${repo}`);
        throw httpError(403, `Resource not accessible by integration: ${repo}`);
      },
      {
        name: 'github_api',
        description: 'Read a file from a GitHub repository through the API',
        schema: z.object({ repo: z.string(), path: z.string() }),
      },
    ),
    tool(
      async ({ command }) => {
        executed.push(`shell ${command}`);
        return 'cloned';
      },
      {
        name: 'shell',
        description: 'Run a shell command',
        schema: z.object({ command: z.string() }),
      },
    ),
  ];
  try {
    const agent = createAgent({ model, tools, middleware: [recovery.middleware] });
    await agent.invoke(ask('Summarise the README of acme/secret.'));
    return finish(recovery.outcome(), trace, log, { executed });
  } finally {
    close();
  }
}

/** A 422 names the field; the contract and the guidance reach the model, which fixes it. */
export async function runLangChainRepairExample(log: Log = console.log, observe?: Observer) {
  const sent: number[] = [];
  const { model, close } = createExampleChatModel([
    toolCall('refund_payment', { paymentId: 'p-42', amount: 1000 }),
    toolCall('refund_payment', { paymentId: 'p-42', amount: 100 }),
    text('Refunded the captured 100 on p-42.'),
  ]);
  const trace = createTrace(log, observe, { guidance: true });
  const recovery = createRecovery({
    runId: 'run-lc-422',
    onEvent: trace.onEvent,
    policies: { refund_payment: { sideEffects: true } },
  });
  const refund = tool(
    async ({ amount }) => {
      void callContext().idempotencyKey; // sent downstream in a real client
      sent.push(amount);
      if (amount > 100) {
        throw Object.assign(new Error('amount exceeds the captured amount of 100'), {
          status: 422,
          param: 'amount',
        });
      }
      return 'refunded';
    },
    { name: 'refund_payment', description: 'Refund a payment', schema: refundSchema },
  );
  try {
    const agent = createAgent({ model, tools: [refund], middleware: [recovery.middleware] });
    await agent.invoke(ask('Refund 1000 on p-42.'));
    return finish(recovery.outcome(), trace, log, { sent });
  } finally {
    close();
  }
}

function finish<T extends Record<string, unknown>>(
  outcome: Outcome,
  trace: ReturnType<typeof createTrace>,
  log: Log,
  facts: T,
): T & { outcome: Outcome } {
  trace.printOutcome(outcome);
  for (const [name, value] of Object.entries(facts)) log(`${name}: ${JSON.stringify(value)}`);
  return { ...facts, outcome };
}
