import { createOpenAI } from '@ai-sdk/openai';
import {
  createScriptedProvider,
  type ScriptEntry,
  type ScriptedProvider,
  startProviderServer,
} from '@recourse/testing';
import type { LanguageModel } from 'ai';

export interface ExampleModel {
  model: LanguageModel;
  mode: 'offline' | 'openai';
  /** The scripted provider's request log (offline only). */
  provider?: ScriptedProvider | undefined;
  close(): void;
}

/**
 * Offline (default): a scripted OpenAI-compatible provider over HTTP, mocked with msw,
 * so the real `@ai-sdk/openai` client runs. With OPENAI_API_KEY set: the real API.
 */
export function createExampleModel(script: ScriptEntry[]): ExampleModel {
  const apiKey = process.env.OPENAI_API_KEY;
  if (apiKey) {
    const openai = createOpenAI({ apiKey });
    return {
      model: openai.chat(process.env.OPENAI_MODEL ?? 'gpt-4o-mini'),
      mode: 'openai',
      close() {},
    };
  }
  const provider = createScriptedProvider({ script });
  const server = startProviderServer(provider);
  const openai = createOpenAI({ baseURL: provider.baseURL, apiKey: 'offline' });
  return { model: openai.chat('gpt-4o'), mode: 'offline', provider, close: () => server.close() };
}
