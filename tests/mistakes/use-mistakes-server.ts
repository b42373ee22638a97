import { createOpenAI } from '@ai-sdk/openai';
import {
  createScriptedProvider,
  type ProviderServer,
  type ScriptedProvider,
  startProviderServer,
} from '@recourse/testing';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createPaymentsService, type PaymentsService } from './payments-service.js';

/**
 * One msw server for the file: the scripted model and the payments service. Any other
 * request fails (`onUnhandledFrame: 'error'`), so no test reaches the real network.
 */
export function useMistakesServer(): {
  provider: ScriptedProvider;
  payments: PaymentsService;
  /** The AI SDK's OpenAI chat model, against the scripted provider. */
  chat: () => ReturnType<ReturnType<typeof createOpenAI>['chat']>;
  /** The official OpenAI client, against the scripted provider (recourse retries, not the SDK). */
  openai: () => OpenAI;
} {
  const provider = createScriptedProvider();
  const payments = createPaymentsService();
  const aiSdk = createOpenAI({ baseURL: provider.baseURL, apiKey: 'test' });
  let running: ProviderServer | undefined;
  beforeAll(() => {
    running = startProviderServer([...provider.handlers, ...payments.handlers]);
  });
  afterAll(() => running?.close());
  beforeEach(() => {
    provider.reset([]);
    payments.reset();
  });
  return {
    provider,
    payments,
    chat: () => aiSdk.chat('gpt-4o'),
    openai: () => new OpenAI({ apiKey: 'test', baseURL: provider.baseURL, maxRetries: 0 }),
  };
}

/** The recovery contract the model received for a call, parsed. */
export function contractOf(output: string): Record<string, unknown> {
  return JSON.parse(output) as Record<string, unknown>;
}
