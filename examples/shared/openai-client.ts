import {
  createScriptedProvider,
  type ScriptEntry,
  type ScriptedProvider,
  startProviderServer,
} from '@recourse/testing';
import OpenAI from 'openai';

export interface ExampleClient {
  client: OpenAI;
  model: string;
  provider?: ScriptedProvider | undefined;
  close(): void;
}

/**
 * The official OpenAI client: against a scripted provider over HTTP (offline, default)
 * or the real API when OPENAI_API_KEY is set. `maxRetries: 0`: recourse owns retries.
 * The client is created after the mock server starts (it captures `fetch` when built).
 */
export function createExampleClient(script: ScriptEntry[]): ExampleClient {
  const apiKey = process.env.OPENAI_API_KEY;
  if (apiKey) {
    return {
      client: new OpenAI({ apiKey, maxRetries: 0 }),
      model: process.env.OPENAI_MODEL ?? 'gpt-4o-mini',
      close() {},
    };
  }
  const provider = createScriptedProvider({ script });
  const server = startProviderServer(provider);
  const client = new OpenAI({ apiKey: 'offline', baseURL: provider.baseURL, maxRetries: 0 });
  return { client, model: 'gpt-4o', provider, close: () => server.close() };
}
