import { tool as sdkTool } from '@openai/agents';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRecovery, InvalidOptionsError, isRecoverableTool, tool } from './index.js';

const echo = tool({
  name: 'echo',
  description: 'Echo',
  parameters: z.object({ text: z.string() }),
  execute: (input) => input.text,
});

describe('createRecovery', () => {
  it('checks its options at construction, naming the field and the one meant', () => {
    expect(() => createRecovery({ runId: 'r', polices: {} } as never)).toThrow(
      /`polices`.*did you mean "policies"/,
    );
    expect(() => createRecovery({ runId: 'r', warn: 'yes' } as never)).toThrow(InvalidOptionsError);
    expect(() => createRecovery({ runId: 'r', escalation: 'ask' } as never)).toThrow(/escalation/);
    expect(() =>
      createRecovery({ runId: 'r', policies: { echo: { sideEfects: true } } } as never),
    ).toThrow(/did you mean "sideEffects"/);
  });

  it('tools(): same names, schemas and order; other tool kinds pass through; wrapping twice is once', () => {
    const recovery = createRecovery({ runId: 'r', warn: false });
    const hosted = { type: 'hosted_tool', name: 'web_search' } as const;
    const [wrapped, passed] = recovery.tools([echo, hosted]);
    expect(passed).toBe(hosted);
    expect(wrapped).not.toBe(echo);
    expect(wrapped).toMatchObject({ name: 'echo', parameters: echo.parameters, strict: true });
    expect(recovery.tools([wrapped])[0]).toBe(wrapped);
    expect(recovery.runId).toBe('r');
  });

  it('tools(): a policy for a tool not in the list throws', () => {
    const recovery = createRecovery({ runId: 'r', warn: false });
    expect(() => recovery.tools([echo], { ehco: { sideEffects: false } })).toThrow(/tools\.ehco/);
  });

  it("tool() is the SDK's tool() with errorFunction: null, marked", async () => {
    const failing = tool({
      name: 'boom',
      description: 'Fails',
      parameters: z.object({}),
      execute: () => {
        throw new Error('boom');
      },
    });
    expect(isRecoverableTool(failing)).toBe(true);
    const plain = sdkTool({
      name: 'plain',
      description: 'Plain',
      parameters: z.object({}),
      execute: () => 'x',
    });
    expect(isRecoverableTool(plain)).toBe(false);
    await expect(failing.invoke({} as never, '{}')).rejects.toThrow('boom');
  });
});
