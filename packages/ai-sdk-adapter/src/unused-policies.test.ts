import { createRecovery } from '@recourse/ai-sdk';
import type { RecoveryEvent } from '@recourse/core';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, tool } from 'ai';
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import { z } from 'zod';
import { createDownstream, readContract, useScriptedProvider } from '../test-support/harness.js';

const { provider, chat } = useScriptedProvider();
const refundArgs = { paymentId: 'p-42', amount: 100 };

let warn: MockInstance<typeof console.warn>;
beforeEach(() => {
  warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
});
afterEach(() => warn.mockRestore());

// The report is made once the current job's tools() calls are done.
const afterTools = () => new Promise((resolve) => setImmediate(resolve));

function refundTool(downstream: ReturnType<typeof createDownstream>) {
  let calls = 0;
  return tool({
    description: 'Refund a payment',
    inputSchema: z.object({ paymentId: z.string(), amount: z.number() }),
    execute: async (input) => downstream.apply(input, ++calls === 1),
  });
}

const unusedEvents = (events: RecoveryEvent[]) => events.filter((e) => e.type === 'policy.unused');

describe('a policy that names no wrapped tool is reported', () => {
  it('a misspelt tool name: a policy.unused event with the name meant, and one console line', async () => {
    const events: RecoveryEvent[] = [];
    const recovery = createRecovery({
      runId: 'run-p1',
      policies: { refund_paymnet: { sideEffects: true } },
      onEvent: (event) => events.push(event),
    });
    recovery.tools({ refund_payment: refundTool(createDownstream()) });
    await afterTools();

    expect(unusedEvents(events)).toEqual([
      {
        type: 'policy.unused',
        runId: 'run-p1',
        tool: 'refund_paymnet',
        suggestion: 'refund_payment',
        at: expect.any(Number),
      },
    ]);
    expect(warn).toHaveBeenCalledTimes(1);
    const [line] = warn.mock.calls[0]!;
    expect(line).toMatch(
      /^recourse: policies\.refund_paymnet names no wrapped tool \(did you mean "refund_payment"\?\); that policy applies to nothing\. createRecovery\(\{ warn: false \}\) silences this\.$/,
    );
    expect(String(line)).not.toContain('\n');
  });

  it('warn: false silences the console line, not the event', async () => {
    const events: RecoveryEvent[] = [];
    const recovery = createRecovery({
      runId: 'run-p2',
      warn: false,
      policies: { refund_paymnet: { sideEffects: true } },
      onEvent: (event) => events.push(event),
    });
    recovery.tools({ refund_payment: refundTool(createDownstream()) });
    await afterTools();
    expect(warn).not.toHaveBeenCalled();
    expect(unusedEvents(events)).toHaveLength(1);
  });

  it('a name close to no tool: reported without a suggestion', async () => {
    const events: RecoveryEvent[] = [];
    const recovery = createRecovery({
      runId: 'run-p3',
      policies: { audit_log: { sideEffects: true } },
      onEvent: (event) => events.push(event),
    });
    recovery.tools({ refund_payment: refundTool(createDownstream()) });
    await afterTools();
    expect(unusedEvents(events)).toEqual([
      { type: 'policy.unused', runId: 'run-p3', tool: 'audit_log', at: expect.any(Number) },
    ]);
    expect(String(warn.mock.calls[0]?.[0])).not.toContain('did you mean');
  });

  it('toolsets wrapped in several calls count together; a policy is reported once', async () => {
    const events: RecoveryEvent[] = [];
    const recovery = createRecovery({
      runId: 'run-p4',
      policies: {
        refund_payment: { sideEffects: true },
        lookup_payment: { sideEffects: false },
        audit_log: { sideEffects: true },
      },
      onEvent: (event) => events.push(event),
    });
    const plain = () => tool({ inputSchema: z.object({}), execute: async () => 'ok' });
    const tools = {
      ...recovery.tools({ refund_payment: refundTool(createDownstream()) }),
      ...recovery.tools({ lookup_payment: plain() }),
    };
    await afterTools();
    recovery.tools(tools); // wrapped again later: nothing new to report
    await afterTools();
    expect(unusedEvents(events).map((e) => e.tool)).toEqual(['audit_log']);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('the misspelt policy protects nothing, but the tool it meant is undeclared: may write, so a lost refund is not re-sent', async () => {
    provider.reset([
      toolCall('refund_payment', refundArgs),
      toolCall('refund_payment', refundArgs),
      text('done'),
    ]);
    const events: RecoveryEvent[] = [];
    const downstream = createDownstream();
    const recovery = createRecovery({
      runId: 'run-p5',
      policies: { refund_paymnet: { sideEffects: true, idempotent: true } },
      onEvent: (event) => events.push(event),
    });
    await generateText({
      model: chat(),
      prompt: 'Refund p-42',
      tools: recovery.tools({ refund_payment: refundTool(downstream) }),
      stopWhen: isStepCount(5),
    });
    expect(downstream.requests).toHaveLength(1); // idempotent: true did not apply: no replay
    expect(downstream.applied).toHaveLength(1);
    expect(readContract(provider.toolResults()[0]!.output)).toMatchObject({
      failure_class: 'UNKNOWN_OUTCOME',
      code: 'RECONCILE_BY_HAND',
    });
    const types = events.map((e) => e.type);
    expect(types).toContain('policy.unused');
    expect(types).toContain('policy.undeclared');
    expect(types.indexOf('policy.unused')).toBeLessThan(types.indexOf('call.started'));
  });
});
