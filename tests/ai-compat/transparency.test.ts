// On the success path a wrapped toolset must be indistinguishable from the raw one: the
// same scripted conversations run once with raw tools and once through recourse (tools,
// stopWhen and prepareStep), through generateText, streamText (every full-stream part) and
// the agent class, on ai@5, ai@6 and ai@7, and everything the SDK produced or handed to a
// tool must be equal. The tools use every property the wrapper must pass through.
import { createRecovery } from '@recourse/ai-sdk';
import {
  createScriptedProvider,
  type ProviderServer,
  type ScriptEntry,
  startProviderServer,
  text,
  toolCall,
} from '@recourse/testing';
import * as ai5 from 'ai-v5';
import * as ai6 from 'ai-v6';
import * as ai7 from 'ai-v7';
import { createOpenAI as createOpenAIv2 } from 'openai-provider-v2';
import { createOpenAI as createOpenAIv3 } from 'openai-provider-v3';
import { createOpenAI as createOpenAIv4 } from 'openai-provider-v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

// biome-ignore lint/suspicious/noExplicitAny: each version's functions have their own types
type Loose = (...args: any[]) => any;
// biome-ignore lint/suspicious/noExplicitAny: each version's agent class has its own types
type AgentClass = new (settings: any) => { generate: Loose; stream: Loose };

interface AiVersion {
  label: string;
  major: 5 | 6 | 7;
  generateText: Loose;
  streamText: Loose;
  tool: Loose;
  dynamicTool: Loose;
  stepCount: (n: number) => unknown;
  Agent: AgentClass;
  createOpenAI: Loose;
}

const versions: AiVersion[] = [
  {
    label: 'ai@5',
    major: 5,
    generateText: ai5.generateText,
    streamText: ai5.streamText,
    tool: ai5.tool,
    dynamicTool: ai5.dynamicTool,
    stepCount: ai5.stepCountIs,
    Agent: ai5.Experimental_Agent as unknown as AgentClass,
    createOpenAI: createOpenAIv2,
  },
  {
    label: 'ai@6',
    major: 6,
    generateText: ai6.generateText,
    streamText: ai6.streamText,
    tool: ai6.tool,
    dynamicTool: ai6.dynamicTool,
    stepCount: ai6.stepCountIs,
    Agent: ai6.ToolLoopAgent as unknown as AgentClass,
    createOpenAI: createOpenAIv3,
  },
  {
    label: 'ai@7',
    major: 7,
    generateText: ai7.generateText,
    streamText: ai7.streamText,
    tool: ai7.tool,
    dynamicTool: ai7.dynamicTool,
    stepCount: ai7.isStepCount,
    Agent: ai7.ToolLoopAgent as unknown as AgentClass,
    createOpenAI: createOpenAIv4,
  },
];

const provider = createScriptedProvider();
let running: ProviderServer | undefined;
beforeAll(() => {
  running = startProviderServer(provider);
});
afterAll(() => running?.close());

type Log = unknown[][];

/** What a tool callback was handed, as data: the same for raw and wrapped tools. */
function describeOptions(options: Record<string, unknown>, signal: AbortSignal): unknown {
  return {
    keys: Object.keys(options).sort(),
    toolCallId: options.toolCallId,
    messages: options.messages,
    abortSignal: options.abortSignal === signal ? 'the run signal' : typeof options.abortSignal,
    context: options.context,
    experimental_context: options.experimental_context,
  };
}

/** Every kind of tool the wrapper must pass through, each callback recorded in `log`. */
function buildTools(v: AiVersion, log: Log, signal: AbortSignal): Record<string, unknown> {
  const weather = v.tool({
    description: 'Current weather for a city',
    inputSchema: z.object({ city: z.string() }),
    outputSchema: z.object({ city: z.string(), celsius: z.number() }),
    providerOptions: { openai: { strict: true } },
    ...(v.major === 7
      ? { contextSchema: z.object({ tenant: z.string() }), metadata: { source: 'weather-service' } }
      : {}),
    onInputStart: (options: Record<string, unknown>) =>
      log.push(['weather.onInputStart', describeOptions(options, signal)]),
    onInputDelta: (options: { inputTextDelta: string; toolCallId: string }) =>
      log.push(['weather.onInputDelta', options.toolCallId, options.inputTextDelta]),
    onInputAvailable: (options: { input: unknown; toolCallId: string }) =>
      log.push(['weather.onInputAvailable', options.toolCallId, options.input]),
    // ai@5 hands toModelOutput the output; ai@6 and ai@7 an options object with it.
    toModelOutput: (arg: { output: { city: string; celsius: number } }) => {
      const output =
        v.major === 5 ? (arg as unknown as { city: string; celsius: number }) : arg.output;
      log.push(['weather.toModelOutput', output]);
      return { type: 'text', value: `${output.city}: ${output.celsius} °C` };
    },
    execute: async (input: { city: string }, options: Record<string, unknown>) => {
      log.push(['weather.execute', input, describeOptions(options, signal)]);
      return { city: input.city, celsius: input.city === 'Paris' ? 21 : 17 };
    },
  });
  const exportReport = v.tool({
    description: 'Export a report, streaming its progress',
    inputSchema: z.object({ id: z.string() }),
    async *execute(input: { id: string }, options: Record<string, unknown>) {
      log.push(['export_report.execute', input, describeOptions(options, signal)]);
      yield { status: 'queued', id: input.id };
      yield { status: 'running', id: input.id, done: 0.5 };
      yield { status: 'finished', id: input.id, url: `https://reports.test/${input.id}` };
    },
  });
  const lookup = v.dynamicTool({
    description: 'Look a record up by key',
    inputSchema: z.object({ key: z.string() }),
    execute: async (input: unknown, options: Record<string, unknown>) => {
      log.push(['lookup.execute', input, describeOptions(options, signal)]);
      return { key: (input as { key: string }).key, value: 42 };
    },
  });
  const saveNote = v.tool({
    description: 'Save a note (a write)',
    inputSchema: z.object({ note: z.string() }),
    execute: async (input: { note: string }, options: Record<string, unknown>) => {
      log.push(['save_note.execute', input, describeOptions(options, signal)]);
      return `saved: ${input.note}`;
    },
  });
  const tools: Record<string, unknown> = {
    weather,
    export_report: exportReport,
    lookup,
    save_note: saveNote,
  };
  if (v.major >= 6) {
    tools.delete_file = v.tool({
      description: 'Delete a file (asks an operator first)',
      inputSchema: z.object({ path: z.string() }),
      needsApproval: async (input: { path: string }, options: Record<string, unknown>) => {
        log.push(['delete_file.needsApproval', input, describeOptions(options, signal)]);
        return input.path !== 'scratch.txt';
      },
      execute: async (input: { path: string }, options: Record<string, unknown>) => {
        log.push(['delete_file.execute', input, describeOptions(options, signal)]);
        return `deleted ${input.path}`;
      },
    });
  }
  return tools;
}

/** One turn per tool, then a parallel turn, then text: no ordering left to chance. */
function conversation(v: AiVersion): ScriptEntry[] {
  return [
    toolCall('weather', { city: 'Paris' }),
    toolCall('export_report', { id: 'r-1' }),
    toolCall('lookup', { key: 'k-1' }),
    toolCall('save_note', { note: 'remember the milk' }),
    [toolCall('weather', { city: 'Paris' }), toolCall('weather', { city: 'Rome' })],
    ...(v.major >= 6 ? [toolCall('delete_file', { path: 'scratch.txt' })] : []),
    text('All done.'),
  ];
}

/** The approval path: a call that needs an operator ends the first run with a request. */
function approvalConversation(): ScriptEntry[] {
  return [toolCall('delete_file', { path: 'report.pdf' }), text('waiting')];
}

type Mode = 'raw' | 'wrapped';

/** The settings one run hands the SDK: raw tools, or everything recourse adds. */
function settings(v: AiVersion, mode: Mode, log: Log, controller: AbortController) {
  const raw = buildTools(v, log, controller.signal);
  const contextOption =
    v.major === 7
      ? { toolsContext: { weather: { tenant: 'acme' } } }
      : { experimental_context: { tenant: 'acme' } };
  const common = {
    model: v.createOpenAI({ baseURL: provider.baseURL, apiKey: 'test' }).chat('gpt-4o'),
    abortSignal: controller.signal,
    ...contextOption,
  };
  if (mode === 'raw') return { ...common, tools: raw, stopWhen: v.stepCount(12) };
  const recovery = createRecovery({
    runId: `transparency-${v.label}-${Math.random()}`,
    policies: {
      weather: { sideEffects: false },
      export_report: { sideEffects: false },
      lookup: { sideEffects: false },
      save_note: { sideEffects: true },
      delete_file: { sideEffects: true },
    },
  });
  return {
    ...common,
    tools: recovery.tools(raw),
    stopWhen: [v.stepCount(12), recovery.stopWhen],
    prepareStep: recovery.prepareStep,
  };
}

// Values that differ between any two runs whatever the tools: the SDK's random ids
// (replaced by their order of appearance, so equal structure still counts) and wall-clock
// measurements (ai@7's `performance`: its shape is kept, its numbers are not compared).
const volatileKeys = new Set(['timestamp', 'approvalId']);

function normalise(value: unknown): unknown {
  const seen = new Map<unknown, string>();
  const walk = (node: unknown, key?: string, timing = false): unknown => {
    if (key !== undefined && volatileKeys.has(key) && node !== undefined) {
      if (!seen.has(node)) seen.set(node, `<${key} ${seen.size + 1}>`);
      return seen.get(node);
    }
    if (timing && typeof node === 'number') return '<measured>';
    if (key === 'performance') timing = true;
    if (node instanceof Date) return '<date>';
    if (typeof node === 'function') return '<function>';
    if (Array.isArray(node)) return node.map((item) => walk(item, undefined, timing));
    if (node instanceof Error) return { error: node.name, message: node.message };
    if (typeof node === 'object' && node !== null) {
      return Object.fromEntries(
        Object.entries(node)
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => [k, walk(v, k, timing)]),
      );
    }
    return node;
  };
  return walk(value);
}

interface Observation {
  result: unknown;
  log: Log;
  requests: unknown;
}

async function observe(
  v: AiVersion,
  mode: Mode,
  script: ScriptEntry[],
  run: (options: ReturnType<typeof settings>) => Promise<unknown>,
): Promise<Observation> {
  provider.reset(script);
  const log: Log = [];
  const result = await run(settings(v, mode, log, new AbortController()));
  return normalise({
    result,
    log,
    // What the model received: tool definitions (providerOptions, schemas), results as
    // toModelOutput shaped them, every message.
    requests: provider.requests.map((request) => request.body),
  }) as Observation;
}

async function generated(result: {
  steps: { content: unknown; finishReason: unknown; usage: unknown }[];
  text: string;
  response: { messages: unknown };
}) {
  return {
    text: result.text,
    steps: result.steps.map((step) => ({
      content: step.content,
      finishReason: step.finishReason,
      usage: step.usage,
    })),
    messages: result.response.messages,
  };
}

async function streamed(result: { fullStream: AsyncIterable<unknown>; text: PromiseLike<string> }) {
  const parts: unknown[] = [];
  for await (const part of result.fullStream) parts.push(part);
  return { parts, text: await result.text };
}

describe.each(versions)('a wrapped toolset is indistinguishable on $label', (v) => {
  const prompt = 'Check the weather, export r-1, look up k-1, save a note';

  it('generateText: steps, content parts, messages, tool callbacks and requests are equal', async () => {
    const run = (options: ReturnType<typeof settings>) =>
      v.generateText({ ...options, prompt }).then(generated);
    const raw = await observe(v, 'raw', conversation(v), run);
    const wrapped = await observe(v, 'wrapped', conversation(v), run);
    // The premise: the SDK did hand the tools what the wrapper must pass through.
    const contextKey = v.major === 7 ? 'context' : 'experimental_context';
    expect(raw.log).toContainEqual([
      'weather.execute',
      { city: 'Paris' },
      expect.objectContaining({ abortSignal: 'the run signal', [contextKey]: { tenant: 'acme' } }),
    ]);
    expect(raw.log).toContainEqual(['weather.toModelOutput', { city: 'Paris', celsius: 21 }]);
    expect(wrapped).toEqual(raw);
  });

  it('streamText: every full-stream part (preliminary results included) is equal', async () => {
    const run = (options: ReturnType<typeof settings>) =>
      streamed(v.streamText({ ...options, prompt }));
    const raw = await observe(v, 'raw', conversation(v), run);
    const wrapped = await observe(v, 'wrapped', conversation(v), run);
    const preliminary = (
      raw.result as { parts: { type: string; preliminary?: boolean }[] }
    ).parts.filter((part) => part.type === 'tool-result' && part.preliminary === true);
    expect(preliminary).toHaveLength(3); // queued, running, finished: forwarded as yielded
    const callbacks = new Set(raw.log.map((entry) => entry[0]));
    for (const name of [
      'weather.onInputStart',
      'weather.onInputDelta',
      'weather.onInputAvailable',
    ]) {
      expect(callbacks).toContain(name);
    }
    expect(wrapped).toEqual(raw);
  });

  // One agent (and one recovery: one run) per conversation: a recovery remembers the run's
  // writes, so a second conversation through the same one would be answered from its ledger.
  it.each(['generate', 'stream'] as const)(
    'the agent class: %s gives equal results',
    async (method) => {
      const run = async (options: ReturnType<typeof settings>) => {
        const { abortSignal, ...agentSettings } = options;
        const agent = new v.Agent(agentSettings);
        const result = await agent[method]({ prompt, abortSignal });
        return method === 'generate' ? generated(result) : streamed(result);
      };
      const raw = await observe(v, 'raw', conversation(v), run);
      const wrapped = await observe(v, 'wrapped', conversation(v), run);
      expect(wrapped).toEqual(raw);
    },
  );

  it.runIf(v.major >= 6)('needsApproval: the approval request is the same', async () => {
    const run = (options: ReturnType<typeof settings>) =>
      v.generateText({ ...options, prompt: 'Delete report.pdf' }).then(generated);
    const raw = await observe(v, 'raw', approvalConversation(), run);
    const wrapped = await observe(v, 'wrapped', approvalConversation(), run);
    const parts = (raw.result as { steps: { content: { type: string }[] }[] }).steps.flatMap(
      (step) => step.content,
    );
    expect(parts.map((part) => part.type)).toContain('tool-approval-request');
    expect(wrapped).toEqual(raw);
  });
});
