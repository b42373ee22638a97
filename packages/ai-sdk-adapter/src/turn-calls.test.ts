// The calls of one model response (one AI SDK step), which the SDK runs side by side: a
// denial in the turn stops its later writes and the calls reaching what was denied; unrelated
// reads still overlap. In-flight counts and the downstream's own record, never times.
import { createRecovery } from '@recourse/ai-sdk';
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

type Step = { toolResults: readonly { toolName: string; output: unknown }[] };
const outputOf = (steps: readonly Step[], name: string) =>
  steps[0]?.toolResults.find((part) => part.toolName === name)?.output;

// The refund is denied; the email, a read of the same payment and an unrelated read share its turn.
const deniedTurn = () => [
  [
    toolCall('refund_payment', { paymentId: 'p-1' }),
    toolCall('send_email', { to: 'customer@example.test' }),
    toolCall('get_payment', { paymentId: 'p-1' }),
    toolCall('read_file', { path: '/srv/app/README.md' }),
  ],
  text('we refunded you'),
];

describe('calls of one turn (ai@7)', () => {
  it.each(['generateText', 'streamText'] as const)(
    '%s: a denial refuses the later write and the overlapping read of its turn; they never run',
    async (loop) => {
      provider.reset(deniedTurn());
      const { shop, recovery, tools } = setUp();
      const settings = {
        model: chat(),
        prompt: 'Refund p-1 and tell the customer',
        tools,
        stopWhen: [isStepCount(5), recovery.stopWhen],
        prepareStep: recovery.prepareStep,
      };
      const steps =
        loop === 'generateText'
          ? (await generateText(settings)).steps
          : await streamText(settings).steps;

      expect(shop.requests).not.toContain('email customer@example.test');
      expect(shop.requests).not.toContain('payment p-1');
      expect(shop.requests.sort()).toEqual(['file /srv/app/README.md', 'refund p-1']);
      expect(outputOf(steps, 'send_email')).toMatchObject({
        code: 'RUN_STOPPED',
        retry_same_action: false,
      });
      expect(outputOf(steps, 'get_payment')).toMatchObject({
        status: 'BLOCKED',
        code: 'DENIED_EARLIER',
        resource: 'payment:p-1',
      });
      expect(outputOf(steps, 'read_file')).toBe('contents of /srv/app/README.md');
      expect(steps).toHaveLength(1);
      expect(recovery.outcome()).toMatchObject({ status: 'BLOCKED' });
      expect(recovery.outcome().completed_steps).not.toContain('send_email');
    },
  );

  it("onDenial 'continue': the bypass in the same turn is refused, the rest runs", async () => {
    provider.reset([
      [
        toolCall('read_file', { path: '/srv/app/.env' }),
        toolCall('shell', { command: 'cat /srv/app/.env' }),
        toolCall('read_file', { path: '/srv/app/README.md' }),
        toolCall('send_email', { to: 'ops@example.test' }),
      ],
      text('done'),
    ]);
    const { shop, recovery, tools } = setUp({ onDenial: 'continue' });
    const result = await generateText({
      model: chat(),
      prompt: 'Read the config',
      tools,
      stopWhen: [isStepCount(2), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });
    expect(shop.requests.filter((r) => r === 'file /srv/app/.env')).toHaveLength(1);
    expect(shop.requests).toContain('file /srv/app/README.md');
    expect(shop.requests).toContain('email ops@example.test');
    expect(outputOf(result.steps, 'shell')).toMatchObject({
      status: 'BLOCKED',
      code: 'DENIED_EARLIER',
      resource: 'file:///srv/app/.env',
    });
  });

  it('unrelated reads of a turn run side by side', async () => {
    provider.reset([
      [
        toolCall('read_file', { path: '/srv/app/a.txt' }),
        toolCall('read_file', { path: '/srv/app/b.txt' }),
        toolCall('get_payment', { paymentId: 'p-2' }),
      ],
      text('done'),
    ]);
    const { shop, recovery, tools } = setUp();
    await generateText({
      model: chat(),
      prompt: 'Read both',
      tools,
      stopWhen: [isStepCount(2), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });
    expect(shop.counts.maxInFlight).toBe(3);
    expect(shop.requests).toHaveLength(3);
  });

  it('a write waits for the calls before it: never two in flight', async () => {
    provider.reset([
      [
        toolCall('refund_payment', { paymentId: 'p-2' }),
        toolCall('send_email', { to: 'customer@example.test' }),
      ],
      text('done'),
    ]);
    const { shop, recovery, tools } = setUp();
    await generateText({
      model: chat(),
      prompt: 'Refund p-2 and tell the customer',
      tools,
      stopWhen: [isStepCount(2), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });
    expect(shop.requests).toEqual(['refund p-2', 'email customer@example.test']);
    expect(shop.counts.maxInFlight).toBe(1);
    expect(recovery.outcome().status).toBe('COMPLETED');
  });

  it('parallelWrites: writes of a turn run side by side, so the email goes out', async () => {
    provider.reset([
      [
        toolCall('refund_payment', { paymentId: 'p-1' }),
        toolCall('send_email', { to: 'customer@example.test' }),
        toolCall('get_payment', { paymentId: 'p-1' }),
      ],
      text('done'),
    ]);
    const { shop, recovery, tools } = setUp({ parallelWrites: true });
    await generateText({
      model: chat(),
      prompt: 'Refund p-1 and tell the customer',
      tools,
      stopWhen: [isStepCount(2), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });
    expect(shop.counts.maxInFlight).toBe(2);
    expect(shop.requests).toContain('email customer@example.test');
    // What overlaps the denied payment still waits, and is refused.
    expect(shop.requests).not.toContain('payment p-1');
  });

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
