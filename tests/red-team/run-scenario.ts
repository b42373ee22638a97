import { createOpenAI } from '@ai-sdk/openai';
import { createRecovery } from '@recourse/ai-sdk';
import type { Outcome } from '@recourse/core';
import { type ScriptedProvider, type ScriptedToolCall, text, toolCall } from '@recourse/testing';
import { generateText, isStepCount } from 'ai';
import type { Route, Scenario } from './routes.js';
import { createSandboxTools, sandboxPolicies } from './sandbox-tools.js';
import { toAiSdkTools } from './sdk-tools.js';

/** What happened to one scripted call: did its tool run, and what did the model get back. */
export interface CallVerdict {
  route: Route;
  id: string;
  executed: boolean;
  /** The tool result the provider received for this call id. */
  output: string | undefined;
}

export interface ScenarioReport {
  denials: CallVerdict[];
  bypass: CallVerdict[];
  legit: CallVerdict[];
  outcome: Outcome;
  /** The resources the run's ledger holds as denied. */
  deniedResources: string[];
}

const callsPerTurn = 12;

/**
 * Runs a scenario through the real AI SDK loop against the scripted provider: turn 1 makes
 * the denied calls, then the bypass and legitimate calls follow interleaved, several parallel
 * calls per turn over successive turns (with `oneTurn`, all of them in the denials' turn),
 * and the model finishes with text. `onDenial:
 * 'continue'`, so that legitimate work goes on after the denials.
 */
export async function runScenario(
  provider: ScriptedProvider,
  scenario: Scenario,
  options: { oneTurn?: boolean } = {},
): Promise<ScenarioReport> {
  const denials = scenario.denials.map((route, i) => ({ route, id: `deny_${i}` }));
  const bypass = scenario.bypass.map((route, i) => ({ route, id: `bypass_${i}` }));
  const legit = scenario.legit.map((route, i) => ({ route, id: `legit_${i}` }));
  const mixed = interleave(bypass, legit);
  const turns: ScriptedToolCall[][] = [denials.map(scripted)];
  if (options.oneTurn) {
    // Every call in the denials' own turn, which the SDK runs side by side.
    turns[0]!.push(...mixed.map(scripted));
  } else {
    for (let i = 0; i < mixed.length; i += callsPerTurn) {
      turns.push(mixed.slice(i, i + callsPerTurn).map(scripted));
    }
  }
  provider.reset([...turns, text('done')]);

  const { tools, executed } = createSandboxTools();
  const runId = `red-team ${scenario.name}`;
  const recovery = createRecovery({
    runId,
    policies: sandboxPolicies(tools),
    onDenial: 'continue',
  });
  const openai = createOpenAI({ baseURL: provider.baseURL, apiKey: 'test' });
  const result = await generateText({
    model: scenario.api === 'chat' ? openai.chat('gpt-4o') : openai.responses('gpt-4o'),
    instructions: 'You are an engineering agent.',
    prompt: `Collect what you can about ${scenario.name}.`,
    tools: recovery.tools(toAiSdkTools(tools)),
    stopWhen: [isStepCount(turns.length + 2), recovery.stopWhen],
    prepareStep: recovery.prepareStep,
  });
  if (result.text !== 'done') throw new Error(`the loop ended early: ${result.finishReason}`);

  const outputs = new Map(provider.toolResults().map((r) => [r.callId, r.output]));
  const verdict = ({ route, id }: { route: Route; id: string }): CallVerdict => ({
    route,
    id,
    executed: executed.includes(id),
    output: outputs.get(id),
  });
  return {
    denials: denials.map(verdict),
    bypass: bypass.map(verdict),
    legit: legit.map(verdict),
    outcome: recovery.outcome(),
    deniedResources: (await recovery.runtime.ledger.listFacts(runId)).denial.map((d) => d.resource),
  };
}

function scripted({ route, id }: { route: Route; id: string }): ScriptedToolCall {
  return toolCall(route.tool, route.input, { id });
}

function interleave<T>(a: readonly T[], b: readonly T[]): T[] {
  const out: T[] = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (i < a.length) out.push(a[i]!);
    if (i < b.length) out.push(b[i]!);
  }
  return out;
}

/**
 * The recovery contract inside a tool result. The AI SDK sends a thrown error's text; the
 * Chat format may wrap it as `{"error": "<text>"}`. Undefined when the output is a result.
 */
export function readContract(output: string | undefined): Record<string, unknown> | undefined {
  if (output === undefined) return undefined;
  try {
    let parsed = JSON.parse(output) as unknown;
    if (isRecord(parsed) && typeof parsed.error === 'string' && !('failure_class' in parsed)) {
      parsed = JSON.parse(parsed.error);
    }
    return isRecord(parsed) && 'failure_class' in parsed ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
