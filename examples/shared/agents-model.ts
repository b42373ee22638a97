import { setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled } from '@openai/agents';
import {
  createScriptedProvider,
  type ScriptEntry,
  type ScriptedProvider,
  startProviderServer,
} from '@recourse/testing';
import OpenAI from 'openai';

export interface AgentsModel {
  model: string;
  provider?: ScriptedProvider | undefined;
  close(): void;
}

/**
 * The model of an OpenAI Agents SDK example: a scripted provider over HTTP (offline, the
 * default), or the real API when OPENAI_API_KEY is set (the SDK reads the key itself).
 * Offline, the SDK's default client points at the provider and its trace export is off.
 */
export function useAgentsModel(script: ScriptEntry[]): AgentsModel {
  setOpenAIAPI('responses');
  if (process.env.OPENAI_API_KEY)
    return { model: process.env.OPENAI_MODEL ?? 'gpt-4o-mini', close() {} };
  setTracingDisabled(true);
  const provider = createScriptedProvider({ script });
  const server = startProviderServer(provider);
  setDefaultOpenAIClient(
    new OpenAI({ apiKey: 'offline', baseURL: provider.baseURL, maxRetries: 0 }),
  );
  return { model: 'gpt-4o', provider, close: () => server.close() };
}
