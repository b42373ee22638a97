import { setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled } from '@openai/agents';
import { type ProviderServer, type ScriptEntry, scriptedProviderServer } from '@recourse/testing';
import { http, passthrough } from 'msw';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createServices } from './services.js';

/**
 * One scripted model and the fake services for a test file: msw at the HTTP boundary, the
 * real `@openai/agents` runner talking to it through a real `openai` client (Responses API).
 * Tracing is off (its exporter would post to the real OpenAI).
 */
export function useAgentsHarness() {
  const running = scriptedProviderServer();
  const { provider } = running;
  const { services, handlers } = createServices();
  beforeAll(() => {
    running.start();
    running.server.use(...handlers);
    setTracingDisabled(true);
    setOpenAIAPI('responses');
    // Created after msw is listening: the client keeps the fetch it finds.
    setDefaultOpenAIClient(
      new OpenAI({ apiKey: 'test', baseURL: provider.baseURL, maxRetries: 0 }),
    );
  });
  afterAll(running.stop);
  beforeEach(() => {
    provider.reset();
    services.reset();
  });
  return {
    provider,
    services,
    /** Adds msw handlers (a downstream the tools call); the latest added answers first. */
    use(...extra: Parameters<ProviderServer['server']['use']>) {
      running.server.use(...extra);
    },
    /** Lets requests to `origin` (a real local server) through msw. */
    passThrough(origin: string) {
      running.server.use(http.all(`${origin}/*`, () => passthrough()));
    },
    script(entries: readonly ScriptEntry[]) {
      provider.reset(entries);
    },
    /** Each tool result the model received, `[callId, output]`. */
    toolOutputs(): [string, string][] {
      return provider.toolResults().map((result) => [result.callId, result.output]);
    },
    /**
     * The recovery contract a call was answered with: from what the model received, or from
     * the run's own items for the calls of the turn that ended the run (never sent back).
     */
    contract(callId: string, result?: { newItems: readonly unknown[] }): Record<string, unknown> {
      const sent = provider.toolResults().find((entry) => entry.callId === callId)?.output;
      const output = sent ?? (result ? outputOf(result.newItems, callId) : undefined);
      if (output === undefined) throw new Error(`no tool result for ${callId}`);
      return JSON.parse(output) as Record<string, unknown>;
    },
  };
}

/** Prints the baseline's figures next to recourse's, so the test log shows them. */
export function report(scenario: string, figures: Record<string, number | string>): void {
  const line = Object.entries(figures)
    .map(([name, value]) => `${name}=${value}`)
    .join(' ');
  console.log(`[agents-sdk] ${scenario}: ${line}`);
}

/** The output of a call among a run's items (`RunToolCallOutputItem`). */
function outputOf(items: readonly unknown[], callId: string): string | undefined {
  for (const item of items as {
    type?: string;
    rawItem?: { callId?: string };
    output?: unknown;
  }[]) {
    if (item.type === 'tool_call_output_item' && item.rawItem?.callId === callId)
      return typeof item.output === 'string'
        ? item.output
        : // An MCP tool's one text part
          ((item.output as { text?: string } | null)?.text ?? JSON.stringify(item.output));
  }
  return undefined;
}
