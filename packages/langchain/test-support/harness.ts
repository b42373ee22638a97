import { ChatOpenAI } from '@langchain/openai';
import { type ScriptedProvider, scriptedProviderServer } from '@recourse/testing';
import type { AnyHandler } from 'msw';
import { afterAll, beforeAll, beforeEach } from 'vitest';

/** A scripted OpenAI-compatible provider over msw, reset before every test. */
export function useScriptedProvider(): {
  provider: ScriptedProvider;
  /** LangChain's own OpenAI chat model, pointed at the provider (no retries of its own). */
  model: () => ChatOpenAI;
  /** Adds msw handlers (a downstream service the tools call) for the current test only. */
  use: (...handlers: AnyHandler[]) => void;
} {
  const running = scriptedProviderServer();
  const { provider } = running;
  beforeAll(running.start);
  afterAll(running.stop);
  beforeEach(() => {
    provider.reset([]);
    running.server.resetHandlers();
  });
  return {
    provider,
    model: () =>
      new ChatOpenAI({
        model: 'gpt-4o',
        apiKey: 'test',
        maxRetries: 0,
        configuration: { baseURL: provider.baseURL },
      }),
    use: (...handlers) => running.server.use(...handlers),
  };
}

/** The tool results the model received, parsed when they are JSON. */
export function toolOutputs(provider: ScriptedProvider): unknown[] {
  return provider.toolResults().map(({ output }) => {
    try {
      return JSON.parse(output) as unknown;
    } catch {
      return output;
    }
  });
}

/** The system-level text one request carried: where the middleware puts its guidance. */
export function systemTextOf(provider: ScriptedProvider, index: number): string {
  const request = provider.requests[index];
  if (!request) throw new Error(`the provider received no request #${index}`);
  const messages = (request.body.messages ?? []) as { role?: string; content?: unknown }[];
  return messages
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => textOf(m.content))
    .join('\n');
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (part as { text?: string }).text ?? '').join('');
}
