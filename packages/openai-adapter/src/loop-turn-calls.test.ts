// The calls of one response, in both APIs, plain and streaming: the shared turn-calls suite
// (`@recourse/core/testing`) through the real `openai` client, which hands them to the
// runtime as one turn. In-flight counts and the downstream's own record, never times.
import { describeTurnCalls } from '@recourse/core/testing';
import { scriptedProviderServer, text, toolCall } from '@recourse/testing';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createTurnShop, turnPolicies } from '../../ai-sdk-adapter/test-support/turn-shop.js';
import { createRecovery } from './index.js';
import {
  contractFor,
  createClient,
  modes,
  outputFor,
  runLoop,
  unansweredInRun,
} from './test-support/harness.js';

const running = scriptedProviderServer();
const { provider } = running;
beforeAll(running.start);
afterAll(running.stop);
beforeEach(() => running.reset());

function setUp(options: { onDenial?: 'continue'; parallelWrites?: boolean } = {}) {
  const shop = createTurnShop();
  running.server.use(...shop.handlers);
  const recovery = createRecovery({ runId: 'run-turn', policies: turnPolicies, ...options });
  const { tools: t } = shop;
  const tools = recovery.tools({
    refund_payment: { description: 'Refund a payment', ...t.refund_payment },
    get_payment: { description: 'Read a payment', ...t.get_payment },
    send_email: { description: 'Send an email', ...t.send_email },
    read_file: { description: 'Read a file', ...t.read_file },
    shell: { description: 'Run a shell command', ...t.shell },
  });
  return { shop, recovery, tools };
}

describeTurnCalls('calls of one turn ($api, stream: $stream)', modes, (mode) => ({
  async run(calls, answer, options, prompt) {
    provider.reset([calls.map((c) => toolCall(c.name, c.input, { id: c.id })), text(answer)]);
    const { shop, recovery, tools } = setUp(options);
    const result = await runLoop(recovery, createClient(provider), mode, tools, prompt, 3);
    return {
      requests: shop.requests,
      maxInFlight: shop.counts.maxInFlight,
      text: (id) => outputFor(result.conversation, id),
      contract: (id) => contractFor(result.conversation, id) as unknown as Record<string, unknown>,
      outcome: result.outcome,
      steps: result.steps,
      unanswered: unansweredInRun(provider, result),
    };
  },
}));
