import { type HttpHandler, http } from 'msw';
import { isRecord } from './is-record.js';
import type { ProviderApi, ProviderRequest, ToolResult } from './provider-request.js';
import { readRequest } from './read-request.js';
import { type RenderedStep, renderStep } from './render-step.js';
import { defaultUsage, type ResolvedTurn } from './resolved-turn.js';
import {
  type ScriptedErrorData,
  type ScriptedTurn,
  type ScriptStep,
  toTurn,
} from './script-steps.js';
import { collectToolResults } from './tool-results.js';

/** A step, or a function of the request that returns one (to react to tool results). */
export type ScriptEntry =
  | ScriptStep
  | ((request: ProviderRequest) => ScriptStep | Promise<ScriptStep>);

export interface ScriptedProviderOptions {
  /** Default `https://api.openai.test/v1`. */
  baseURL?: string | undefined;
  /** One entry per model request, in order of arrival, across both APIs. */
  script?: readonly ScriptEntry[] | undefined;
  /** Past the end: a 500 naming the problem (default), or the last entry again. */
  onExhausted?: 'error' | 'repeat-last' | undefined;
  /** The `created` timestamp of every body, in seconds. Fixed so output is deterministic. */
  created?: number | undefined;
}

export interface ScriptedProvider {
  readonly baseURL: string;
  /** POST `{baseURL}/chat/completions` and `{baseURL}/responses`, plain and streaming. */
  readonly handlers: readonly HttpHandler[];
  /** Every request received, in order of arrival. */
  readonly requests: readonly ProviderRequest[];
  /** Every tool result the client sent back, each call id once, in order of appearance. */
  toolResults(): ToolResult[];
  /** Script entries not yet used. */
  remaining(): number;
  /** Clears the log and the id counters and starts the script (or a new one) from the top. */
  reset(script?: readonly ScriptEntry[]): void;
}

export const defaultBaseURL = 'https://api.openai.test/v1';

const serverError = (code: string, message: string): RenderedStep => {
  const error: ScriptedErrorData = { message, type: 'server_error', code, param: null };
  return { kind: 'http-error', status: 500, headers: {}, body: { error } };
};

export function createScriptedProvider(options: ScriptedProviderOptions = {}): ScriptedProvider {
  const baseURL = (options.baseURL ?? defaultBaseURL).replace(/\/+$/, '');
  const created = options.created ?? 1_767_225_600;
  let script: readonly ScriptEntry[] = options.script ?? [];
  let position = 0;
  let received = 0;
  let turnCount = 0;
  let callCount = 0;
  const requests: ProviderRequest[] = [];

  const resolveTurn = (turn: ScriptedTurn, request: ProviderRequest): ResolvedTurn => {
    const n = ++turnCount;
    const toolCalls = turn.toolCalls.map((call) => {
      const k = ++callCount;
      const callId = call.id ?? `call_${k}`;
      return { callId, itemId: `fc_${k}`, name: call.name, arguments: call.arguments };
    });
    return {
      id: request.api === 'chat' ? `chatcmpl-${n}` : `resp_${n}`,
      messageId: `msg_${n}`,
      model: typeof request.body.model === 'string' ? request.body.model : 'gpt-4o',
      created,
      text: turn.text,
      toolCalls,
      usage: turn.usage ?? defaultUsage,
    };
  };

  const resolveStep = (step: ScriptStep, request: ProviderRequest): RenderedStep => {
    if (Array.isArray(step)) return { kind: 'turn', turn: resolveTurn(toTurn(step), request) };
    const single = step as Exclude<ScriptStep, readonly unknown[]>;
    if (single.kind === 'http-error') return single;
    if (single.kind === 'stream-error') {
      const turn = resolveTurn({ kind: 'turn', text: single.text, toolCalls: [] }, request);
      return { kind: 'stream-error', turn, error: single.error };
    }
    return { kind: 'turn', turn: resolveTurn(toTurn(single), request) };
  };

  const answer = async (entry: ScriptEntry | undefined, request: ProviderRequest) => {
    if (entry === undefined) {
      const message = `@recourse/testing: script exhausted: request #${request.index} (${request.api}) arrived after all ${script.length} script entries were used; see provider.requests`;
      return serverError('script_exhausted', message);
    }
    try {
      return resolveStep(typeof entry === 'function' ? await entry(request) : entry, request);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return serverError('script_error', `@recourse/testing: script entry threw: ${reason}`);
    }
  };

  const nextEntry = (): ScriptEntry | undefined => {
    if (position < script.length) return script[position++];
    return options.onExhausted === 'repeat-last' ? script.at(-1) : undefined;
  };

  const handle =
    (api: ProviderApi) =>
    async ({ request }: { request: Request }): Promise<Response> => {
      // Claim the index and entry before any await: concurrent requests keep arrival order.
      const index = received++;
      const entry = nextEntry();
      const logged = await readRequest(request, api, index);
      requests.push(logged);
      requests.sort((a, b) => a.index - b.index);
      const step = await answer(entry, logged);
      const streamOptions = logged.body.stream_options;
      const includeUsage = isRecord(streamOptions) && streamOptions.include_usage === true;
      return renderStep(step, { api, stream: logged.stream, includeUsage });
    };

  return {
    baseURL,
    handlers: [
      http.post(`${baseURL}/chat/completions`, handle('chat')),
      http.post(`${baseURL}/responses`, handle('responses')),
    ],
    get requests() {
      return requests;
    },
    toolResults: () => collectToolResults(requests.map((request) => request.toolResults)),
    remaining: () => Math.max(0, script.length - position),
    reset(next) {
      if (next !== undefined) script = next;
      position = 0;
      received = 0;
      turnCount = 0;
      callCount = 0;
      requests.length = 0;
    },
  };
}
