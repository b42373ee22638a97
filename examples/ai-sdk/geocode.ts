import { createRecovery } from '@recourse/ai-sdk';
import { type Clock, callContext, systemClock } from '@recourse/core';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, tool } from 'ai';
import { z } from 'zod';
import { createExampleModel } from '../shared/model.js';
import { createTrace, type Log, type Observer } from '../shared/trace.js';

const timeout = () => new DOMException('The operation was aborted due to timeout', 'TimeoutError');

/**
 * The same timeout, two different answers. The geocoding lookup is a read: it times out on
 * attempt 1 of 3 and is retried inside the call after a jittered backoff (100–200 ms,
 * growing fourfold per retry); the model only sees the coordinates. Posting the normalized
 * address to the internal address service is a write: it lands, then its response times
 * out. That step is past the side-effect boundary, so it is not retried: with no reconcile
 * read and no idempotent downstream, nothing can prove whether it landed, and the run stops
 * with the write listed for a person to reconcile. Exactly one post reached the service.
 */
export async function runGeocodeExample(
  log: Log = console.log,
  observe?: Observer,
  clock: Clock = systemClock,
) {
  let lookups = 0;
  const posted: { address: string; idempotencyKey: string }[] = [];
  const address = { street: 'Andrássy út 60', city: 'Budapest' };
  const { model, close } = createExampleModel([
    toolCall('geocode', address),
    toolCall('post_normalized_address', { ...address, lat: 47.5069, lon: 19.0646 }),
    toolCall('post_normalized_address', { ...address, lat: 47.5069, lon: 19.0646 }), // never sent
    text('unreachable: the run stopped'),
  ]);
  const trace = createTrace(log, observe, { guidance: true });
  const recovery = createRecovery({
    runId: 'run-enrich-17',
    onEvent: trace.onEvent,
    clock,
    retry: { maxAttempts: 3 }, // attempts of one call, the first included
    policies: {
      geocode: { sideEffects: false },
      post_normalized_address: { sideEffects: true }, // no reconcile, not idempotent
    },
  });
  try {
    await generateText({
      model,
      prompt: 'Normalize and store the address Andrássy út 60, Budapest.',
      tools: recovery.tools({
        geocode: tool({
          description: 'Look up the coordinates of an address',
          inputSchema: z.object({ street: z.string(), city: z.string() }),
          execute: async () => {
            if (++lookups === 1) throw timeout();
            return { lat: 47.5069, lon: 19.0646 };
          },
        }),
        post_normalized_address: tool({
          description: 'Store a normalized address in the internal address service',
          inputSchema: z.object({
            street: z.string(),
            city: z.string(),
            lat: z.number(),
            lon: z.number(),
          }),
          execute: async ({ street, city }): Promise<string> => {
            posted.push({
              address: `${street}, ${city}`,
              idempotencyKey: callContext().idempotencyKey,
            });
            throw timeout(); // the service stored it; the response never came back
          },
        }),
      }),
      stopWhen: [isStepCount(6), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });
    const outcome = recovery.outcome();
    trace.printOutcome(outcome);
    log(`geocoding lookups: ${lookups}; posts that reached the address service: ${posted.length}`);
    return { outcome, lookups, posted };
  } finally {
    close();
  }
}
