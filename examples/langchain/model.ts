import { ChatOpenAI } from '@langchain/openai';
import { createScriptedProvider, type ScriptEntry, startProviderServer } from '@recourse/testing';

/**
 * LangChain's own OpenAI chat model. Offline (default) it talks to a scripted
 * OpenAI-compatible provider over HTTP, mocked with msw; with OPENAI_API_KEY set, to the real API.
 */
export function createExampleChatModel(script: ScriptEntry[]) {
  const apiKey = process.env.OPENAI_API_KEY;
  if (apiKey) {
    const model = new ChatOpenAI({ model: process.env.OPENAI_MODEL ?? 'gpt-4o-mini', apiKey });
    return { model, close() {} };
  }
  const provider = createScriptedProvider({ script });
  const server = startProviderServer(provider);
  const model = new ChatOpenAI({
    model: 'gpt-4o',
    apiKey: 'offline',
    maxRetries: 0,
    configuration: { baseURL: provider.baseURL },
  });
  return { model, provider, close: () => server.close() };
}
