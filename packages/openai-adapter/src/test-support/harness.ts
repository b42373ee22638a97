import type { Outcome, RecoveryContract } from '@recourse/core';
import type { FakeClock } from '@recourse/core/testing';
import type { ProviderRequest, ScriptedProvider } from '@recourse/testing';
import OpenAI from 'openai';
import type { OpenAIRecovery } from '../create-recovery.js';
import type { AnyRecoveryToolSet } from '../define-tools.js';

/** Both APIs, plain and streaming: every loop test runs in each. */
export const modes = [
  { api: 'responses', stream: false },
  { api: 'responses', stream: true },
  { api: 'chat', stream: false },
  { api: 'chat', stream: true },
] as const;
export type Mode = (typeof modes)[number];

export function createClient(provider: ScriptedProvider): OpenAI {
  return new OpenAI({ apiKey: 'test', baseURL: provider.baseURL, maxRetries: 0 });
}

export interface LoopResult {
  text: string;
  outcome: Outcome;
  steps: number;
  /** The final conversation (input list or messages). */
  conversation: readonly unknown[];
}

/** Runs one loop in `mode` with a single user prompt. */
export async function runLoop(
  recovery: OpenAIRecovery,
  client: OpenAI,
  mode: Mode,
  tools: AnyRecoveryToolSet,
  prompt: string,
  maxSteps = 8,
): Promise<LoopResult> {
  if (mode.api === 'responses') {
    const result = await recovery.runResponses(client, {
      model: 'gpt-4o',
      input: prompt,
      tools,
      stream: mode.stream,
      maxSteps,
    });
    return {
      text: result.text,
      outcome: result.outcome,
      steps: result.steps.length,
      conversation: result.input,
    };
  }
  const result = await recovery.runChat(client, {
    model: 'gpt-4o',
    messages: [{ role: 'user', content: prompt }],
    tools,
    stream: mode.stream,
    maxSteps,
  });
  return {
    text: result.text,
    outcome: result.outcome,
    steps: result.steps.length,
    conversation: result.messages,
  };
}

type Item = Record<string, unknown>;

/**
 * Call ids in a conversation that have no answer: a function_call without its
 * function_call_output (Responses), an assistant tool call without its tool message (Chat).
 * The real API rejects the next request with 400 "No tool output found" for any of them.
 */
export function unansweredCallIds(conversation: readonly unknown[]): string[] {
  const asked: string[] = [];
  const answered = new Set<string>();
  for (const entry of conversation as Item[]) {
    if (entry.type === 'function_call') asked.push(String(entry.call_id));
    if (entry.type === 'function_call_output') answered.add(String(entry.call_id));
    if (entry.role === 'assistant' && Array.isArray(entry.tool_calls))
      for (const call of entry.tool_calls as Item[]) asked.push(String(call.id));
    if (entry.role === 'tool') answered.add(String(entry.tool_call_id));
  }
  return asked.filter((id) => !answered.has(id));
}

export function conversationOf(request: ProviderRequest): unknown[] {
  const list = request.api === 'chat' ? request.body.messages : request.body.input;
  return Array.isArray(list) ? list : [];
}

/** Call ids left unanswered in any request the provider received or in the final conversation. */
export function unansweredInRun(provider: ScriptedProvider, result: LoopResult): string[] {
  return [
    ...provider.requests.flatMap((request) => unansweredCallIds(conversationOf(request))),
    ...unansweredCallIds(result.conversation),
  ];
}

/** The text a conversation sends back for a call id (also after the loop stopped). */
export function outputFor(conversation: readonly unknown[], callId: string): string {
  for (const entry of conversation as Item[]) {
    if (entry.type === 'function_call_output' && entry.call_id === callId)
      return String(entry.output);
    if (entry.role === 'tool' && entry.tool_call_id === callId) return String(entry.content);
  }
  throw new Error(`no answer for ${callId}`);
}

/** The recovery contract sent back for a call id, parsed. */
export function contractFor(conversation: readonly unknown[], callId: string): RecoveryContract {
  return JSON.parse(outputFor(conversation, callId)) as RecoveryContract;
}

/**
 * Runs `work` while waking the fake clock's sleepers as they appear, so a backoff never
 * waits for real. Between timers, lets real I/O (the mocked HTTP round trips) proceed.
 */
export async function driveClock<T>(clock: FakeClock, work: Promise<T>): Promise<T> {
  let done = false;
  const finished = work.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  while (!done) {
    if (!(await clock.next())) await Promise.race([finished, new Promise((r) => setImmediate(r))]);
  }
  return work;
}

export interface Payments {
  /** Every request that reached the payments service, with its idempotency key. */
  requests: { paymentId: string; key: string }[];
  /** Every refund actually applied. */
  writes: { paymentId: string; amount: number; key: string }[];
  refund(input: { paymentId: string; amount: number }, key: string): string;
  findByKey(key: string): boolean;
}

/**
 * A sandbox payments service. The first request applies the refund and then loses its
 * response (a client timeout after the write). With `dedupe` it honours idempotency keys
 * the way Stripe does; without, every request that gets through applies again.
 */
export function createPayments(options: { dedupe: boolean }): Payments {
  const payments: Payments = {
    requests: [],
    writes: [],
    refund(input, key) {
      payments.requests.push({ paymentId: input.paymentId, key });
      if (options.dedupe && payments.findByKey(key)) return `refunded ${input.paymentId}`;
      payments.writes.push({ ...input, key });
      if (payments.requests.length === 1)
        throw new DOMException('The operation was aborted due to timeout', 'TimeoutError');
      return `refunded ${input.paymentId}`;
    },
    findByKey: (key) => payments.writes.some((write) => write.key === key),
  };
  return payments;
}

// A sandbox service called as a fetch wrapper does (shared: `@recourse/testing`).
export { callService } from '@recourse/testing';

/**
 * The guidance text one request carried: the Responses API's `instructions`, or the
 * system and developer messages of a Chat request (the loop appends its guidance as one).
 */
export function guidanceSent(provider: ScriptedProvider, index: number): string {
  const request = provider.requests[index];
  if (!request) throw new Error(`the provider received no request #${index}`);
  if (request.api === 'responses') {
    const { instructions } = request.body;
    return typeof instructions === 'string' ? instructions : '';
  }
  return (conversationOf(request) as { role?: string; content?: unknown }[])
    .filter((message) => message.role === 'system' || message.role === 'developer')
    .map((message) => String(message.content))
    .join('\n');
}
