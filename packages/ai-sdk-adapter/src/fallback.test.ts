import { createRecovery } from '@recourse/ai-sdk';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { httpFailure, useScriptedProvider } from '../test-support/harness.js';

const { provider, chat } = useScriptedProvider();

describe('a declared fallback', () => {
  it('stands in explicitly: the model reads PARTIAL_RESULT, never silently stale data', async () => {
    provider.reset([toolCall('deployment_metrics', { service: 'api' }), text('partial answer')]);
    let primaryCalls = 0;
    const recovery = createRecovery({
      runId: 'run-f1',
      retry: { maxAttempts: 2, baseDelayMs: 0 },
      policies: {
        deployment_metrics: {
          fallback: () => ({ cached: true, p99Ms: 180 }),
          missingEvidence: 'live deployment metrics',
        },
      },
    });
    await generateText({
      model: chat(),
      prompt: 'How is the api deployment doing?',
      tools: recovery.tools({
        deployment_metrics: tool({
          inputSchema: z.object({ service: z.string() }),
          execute: async (): Promise<unknown> => {
            primaryCalls++;
            throw httpFailure(503, {}, 'observability API unavailable');
          },
        }),
      }),
      stopWhen: [isStepCount(4), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });
    expect(primaryCalls).toBe(2);
    expect(JSON.parse(provider.toolResults()[0]!.output)).toEqual({
      status: 'PARTIAL_RESULT',
      confidence: 'LOW',
      missing_evidence: ['live deployment metrics'],
      result: { cached: true, p99Ms: 180 },
    });
    expect(recovery.outcome()).toMatchObject({
      status: 'PARTIAL_RESULT',
      missing_evidence: ['live deployment metrics'],
      confidence: 'LOW',
    });
  });
});
