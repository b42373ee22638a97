import { createRecovery } from '@recourse/ai-sdk';
import { type Clock, systemClock } from '@recourse/core';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount, tool } from 'ai';
import { z } from 'zod';
import { createExampleModel } from '../shared/model.js';
import { createTrace, type Log, type Observer } from '../shared/trace.js';

const alertFields = z.object({ service: z.string(), severity: z.string(), summary: z.string() });
const alert = 'CRIT checkout-api: p99 latency 4.2 s since 13:40, db connect timeouts';

/**
 * A strategy switch: the `extract_alert` tool asks a second model (model A, through the
 * same real client) for the alert's fields as JSON. Its answer is invalid three times (prose,
 * truncated JSON, a missing field): `check` rejects each one as worth a fresh sample (a
 * model is not deterministic), then the attempts are spent and the declared fallback, a
 * deterministic parser, stands in. It reads the service and severity but no summary, and
 * the agent is told exactly that: PARTIAL_RESULT, LOW confidence, what is missing.
 */
export async function runParserFallbackExample(
  log: Log = console.log,
  observe?: Observer,
  clock: Clock = systemClock,
) {
  let samples = 0;
  // One scripted provider answers both: the agent, and model A inside the tool.
  const { model, close, provider } = createExampleModel([
    toolCall('extract_alert', { alert }), // the agent
    text('Sure! The service is checkout-api and it is critical.'), // model A, three times
    text('{"service": "checkout-api", "severity": "critical"'),
    text('{"service": "checkout-api", "severity": "critical"}'),
    text('checkout-api is critical (fields from the fallback parser; no summary extracted).'),
  ]);
  const trace = createTrace(log, observe);
  const recovery = createRecovery({
    runId: 'run-alert-12',
    onEvent: trace.onEvent,
    clock,
    retry: { maxAttempts: 3 }, // attempts of one call, the first included
    policies: {
      extract_alert: {
        sideEffects: false,
        check: (raw: string) => {
          const parsed = alertFields.safeParse(parseJson(raw));
          return parsed.success
            ? undefined
            : {
                message: 'model A returned no valid alert fields',
                code: 'INVALID_STRUCTURED_OUTPUT',
                failureClass: 'TRANSIENT', // sample again; the attempts bound it
              };
        },
        fallback: (input: { alert: string }) => {
          const [, severity, service] = /^(\w+)\s+([\w-]+):/.exec(input.alert) ?? [];
          return { service, severity: severity?.toLowerCase(), parser: 'deterministic' };
        },
        missingEvidence: 'alert summary (model extraction failed; fields from the parser)',
      },
    },
  });
  try {
    const result = await generateText({
      model,
      prompt: `Triage this alert: ${alert}`,
      tools: recovery.tools({
        extract_alert: tool({
          description: 'Extract service, severity and summary from an alert',
          inputSchema: z.object({ alert: z.string() }),
          execute: async ({ alert }) => {
            samples++;
            const { text } = await generateText({
              model,
              prompt: `Return only JSON {"service","severity","summary"} for: ${alert}`,
            });
            return text;
          },
        }),
      }),
      stopWhen: [isStepCount(4), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });
    const outcome = recovery.outcome();
    const told = provider?.toolResults().find((r) => r.output.includes('PARTIAL_RESULT'));
    if (told) log(`the agent received: ${told.output}`);
    trace.printOutcome(outcome);
    log(`model A samples: ${samples}; agent: ${result.text}`);
    return { outcome, samples, told: told && JSON.parse(told.output), text: result.text };
  } finally {
    close();
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
