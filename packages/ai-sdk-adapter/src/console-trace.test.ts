import { createRecovery } from '@recourse/ai-sdk';
import { createConsoleTrace } from '@recourse/core';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, tool } from 'ai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createDownstream, useScriptedProvider } from '../test-support/harness.js';

const { provider, chat } = useScriptedProvider();
const secret = 'sk_live_51Hh2aQz0Rb8cXn4Ks9Tq7Wm3';
const refundArgs = { paymentId: 'p-42', amount: 100, apiKey: secret };

const refundTool = (downstream: ReturnType<typeof createDownstream>) =>
  tool({
    description: 'Refund a payment',
    inputSchema: z.object({ paymentId: z.string(), amount: z.number(), apiKey: z.string() }),
    execute: async (input): Promise<string> => {
      downstream.apply(input);
      throw new DOMException(`timed out calling payments with key ${secret}`, 'TimeoutError');
    },
  });

const lookupTool = () =>
  tool({
    inputSchema: z.object({ paymentId: z.string() }),
    execute: async ({ paymentId }) => `${paymentId}: 100 EUR`,
  });

/** A refund whose response is lost (reconcile by hand), then a turn of three parallel calls. */
async function runTraced(options: { color?: boolean } = {}) {
  provider.reset([
    toolCall('refund_payment', refundArgs),
    [
      toolCall('lookup_payment', { paymentId: 'p-1' }),
      toolCall('lookup_payment', { paymentId: 'p-2' }),
      toolCall('lookup_payment', { paymentId: 'p-3' }),
    ],
    text('done'),
  ]);
  const lines: string[] = [];
  const trace = createConsoleTrace({ ...options, write: (line) => lines.push(line) });
  const downstream = createDownstream();
  const recovery = createRecovery({
    runId: 'run-c1',
    policies: { refund_payment: { sideEffects: true }, lookup_payment: { sideEffects: false } },
    onEvent: trace,
  });
  // No stopWhen: the model's next turn reaches the wrapper after the run stopped.
  await generateText({
    model: chat(),
    prompt: 'Refund p-42',
    tools: recovery.tools({ refund_payment: refundTool(downstream), lookup_payment: lookupTool() }),
    stopWhen: isStepCount(5),
  });
  trace.outcome(recovery.outcome());
  return { lines, downstream };
}

afterEach(() => vi.restoreAllMocks());

describe('createConsoleTrace as an onEvent listener', () => {
  it('one line per event: the call, failure class and code, the decision and why, what the model was told, the outcome', async () => {
    const { lines, downstream } = await runTraced({ color: false });
    expect(downstream.applied).toHaveLength(1);
    const at = (pattern: RegExp) => lines.findIndex((line) => pattern.test(line));

    const call = at(/^call_1 → refund_payment\(.*\)$/);
    const failure = at(/^call_1 {3}✗ UNKNOWN_OUTCOME TIMEOUT: /);
    const decision = at(/^call_1 {3}⇒ ABORT RECONCILE_BY_HAND: /);
    const told = at(
      /^call_1 {3}✎ model told: \{"failure_class":"UNKNOWN_OUTCOME","recommended_recovery":"ABORT","retry_same_action":false,"code":"RECONCILE_BY_HAND"\}$/,
    );
    const stopped = at(/^■ run stopped: FAILED \(RECONCILE_BY_HAND\)$/);
    for (const index of [call, failure, decision, told, stopped]) expect(index).toBeGreaterThan(-1);
    expect([call, failure, decision, told]).toEqual(
      [...[call, failure, decision, told]].sort((a, b) => a - b),
    );

    // The three parallel calls of the next turn were refused: one line, not three.
    expect(lines.filter((line) => line.includes('lookup_payment'))).toEqual([]);
    expect(lines).toContain('  ⋯ 3 more calls of the same turn, not run (the run had stopped)');

    expect(lines).toContain('outcome: FAILED RECONCILE_BY_HAND');
    expect(lines.some((line) => line.includes('"needs_reconciliation"'))).toBe(true);
    // Secrets in the input and in the error text are redacted everywhere.
    const all = lines.join('\n');
    expect(all).not.toContain(secret);
    expect(all).not.toContain('Rb8cXn4Ks9Tq7Wm3');
    expect(lines[call]).toContain('p-42');
  });

  it('color: true paints the marks with ANSI codes; color: false prints plain text', async () => {
    // ESC [ n m: an SGR colour code.
    const ansi = new RegExp(`${String.fromCharCode(27)}\\[\\d+m`, 'g');
    const plain = await runTraced({ color: false });
    expect(plain.lines.some((line) => line.search(ansi) >= 0)).toBe(false);
    const painted = await runTraced({ color: true });
    expect(painted.lines.some((line) => line.search(ansi) >= 0)).toBe(true);
    // Same words either way.
    expect(painted.lines.map((line) => line.replace(ansi, ''))).toEqual(plain.lines);
  });

  it('without write, lines go to console.log', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const trace = createConsoleTrace({ color: false });
    trace({ type: 'policy.undeclared', runId: 'run-c2', tool: 'notify', at: 0 });
    expect(log).toHaveBeenCalledWith(
      '• notify does not declare sideEffects: treated as a tool that may write',
    );
  });
});
