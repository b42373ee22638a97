// The calls of one model response (one AI SDK step), which the SDK runs side by side: the
// shared turn-calls suite (`@recourse/core/testing`) through generateText and streamText,
// then what only the AI SDK shows. In-flight counts and the downstream's own record, never times.
import { createRecovery } from '@recourse/ai-sdk';
import { describeTurnCalls } from '@recourse/core/testing';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, streamText, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { useScriptedProvider } from '../test-support/harness.js';
import { createTurnShop, turnPolicies } from '../test-support/turn-shop.js';

const { provider, chat, use } = useScriptedProvider();

function setUp(options: { onDenial?: 'continue'; parallelWrites?: boolean } = {}) {
  const shop = createTurnShop();
  use(...shop.handlers);
  const recovery = createRecovery({ runId: 'run-turn', policies: turnPolicies, ...options });
  const { tools: t } = shop;
  const tools = recovery.tools({
    refund_payment: tool(t.refund_payment),
    get_payment: tool(t.get_payment),
    send_email: tool(t.send_email),
    read_file: tool(t.read_file),
    shell: tool(t.shell),
  });
  return { shop, recovery, tools };
}

describeTurnCalls(
  'calls of one turn (ai@7, $loop)',
  [{ loop: 'generateText' }, { loop: 'streamText' }] as const,
  ({ loop }) => ({
    async run(calls, answer, options, prompt) {
      provider.reset([calls.map((c) => toolCall(c.name, c.input, { id: c.id })), text(answer)]);
      const { shop, recovery, tools } = setUp(options);
      const settings = {
        model: chat(),
        prompt,
        tools,
        stopWhen: [isStepCount(5), recovery.stopWhen],
        prepareStep: recovery.prepareStep,
      };
      const steps =
        loop === 'generateText'
          ? (await generateText(settings)).steps
          : await streamText(settings).steps;
      const outputOf = (id: string) =>
        steps.flatMap((step) => step.toolResults).find((part) => part.toolCallId === id)?.output;
      return {
        requests: shop.requests,
        maxInFlight: shop.counts.maxInFlight,
        text: (id) => String(outputOf(id)),
        contract: (id) => outputOf(id) as Record<string, unknown>,
        outcome: recovery.outcome(),
        steps: steps.length,
      };
    },
  }),
);

describe('calls of one turn (ai@7)', () => {
  it('a call the SDK refused (invalid input) holds nothing: the write after it runs', async () => {
    provider.reset([
      [
        toolCall('refund_payment', { paymentId: 42 }),
        toolCall('send_email', { to: 'customer@example.test' }),
      ],
      text('done'),
    ]);
    const { shop, recovery, tools } = setUp();
    await generateText({
      model: chat(),
      prompt: 'Refund and tell the customer',
      tools,
      stopWhen: [isStepCount(2), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });
    expect(shop.requests).toEqual(['email customer@example.test']);
  });

  it("an earlier call that never settles: the run's abort ends the wait, the write never runs", async () => {
    provider.reset([
      [
        toolCall('read_file', { path: '/srv/app/a.txt' }),
        toolCall('send_email', { to: 'x@y.test' }),
      ],
      text('done'),
    ]);
    const { shop } = setUp();
    const recovery = createRecovery({ runId: 'run-turn-abort', policies: turnPolicies });
    let started!: () => void;
    const readStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    const tools = recovery.tools({
      // Hangs until the run is aborted.
      read_file: tool({
        ...shop.tools.read_file,
        execute: (_input, { abortSignal }) =>
          new Promise<string>((_resolve, reject) => {
            started();
            abortSignal?.addEventListener('abort', () => reject(abortSignal.reason));
          }),
      }),
      send_email: tool(shop.tools.send_email),
    });
    const controller = new AbortController();
    const run = generateText({
      model: chat(),
      prompt: 'Read, then mail',
      tools,
      abortSignal: controller.signal,
      stopWhen: [isStepCount(2), recovery.stopWhen],
    });
    await readStarted;
    await new Promise((resolve) => setImmediate(resolve)); // the email has joined and waits
    const reason = new Error('user cancelled');
    controller.abort(reason);
    await expect(run).rejects.toBe(reason);
    expect(shop.requests).toEqual([]);
  });

  it('rejects a parallelWrites that is not a boolean, naming it', () => {
    expect(() =>
      createRecovery({ runId: 'r', parallelWrites: 'yes' as unknown as boolean }),
    ).toThrow(/parallelWrites/);
    expect(() =>
      createRecovery({ runId: 'r', parallelWrite: true } as unknown as { runId: string }),
    ).toThrow(/did you mean "parallelWrites"/);
  });
});
