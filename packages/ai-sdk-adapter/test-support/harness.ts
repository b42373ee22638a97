import { createOpenAI } from '@ai-sdk/openai';
import { ToolCallFailedError, toolCallFailureOf } from '@recourse/ai-sdk';
import { callContext, type RecoveryContract } from '@recourse/core';
import { type ScriptedProvider, scriptedProviderServer } from '@recourse/testing';
import type { AnyHandler } from 'msw';
import { afterAll, beforeAll, beforeEach } from 'vitest';

/** A scripted OpenAI-compatible provider over msw, reset before every test. */
export function useScriptedProvider(): {
  provider: ScriptedProvider;
  chat: () => ReturnType<ReturnType<typeof createOpenAI>['chat']>;
  responses: () => ReturnType<ReturnType<typeof createOpenAI>['responses']>;
  /** Adds msw handlers (a downstream service the tools call) for the current test only. */
  use: (...handlers: AnyHandler[]) => void;
} {
  const running = scriptedProviderServer();
  const { provider } = running;
  const openai = createOpenAI({ baseURL: provider.baseURL, apiKey: 'test' });
  beforeAll(running.start);
  afterAll(running.stop);
  beforeEach(() => {
    provider.reset([]);
    running.server.resetHandlers();
  });
  return {
    provider,
    chat: () => openai.chat('gpt-4o'),
    responses: () => openai.responses('gpt-4o'),
    use: (...handlers) => running.server.use(...handlers),
  };
}

export interface DownstreamRequest {
  key: string;
  input: unknown;
}

/**
 * A sandbox payment service: records every request and every applied write with the
 * idempotency key recourse put in the call context. With `dedupe`, a repeated key returns
 * the first result instead of applying again (a downstream that honours the key).
 */
export function createDownstream(options: { dedupe?: boolean } = {}) {
  const requests: DownstreamRequest[] = [];
  const applied: DownstreamRequest[] = [];
  return {
    requests,
    applied,
    /** Applies the write; `loseResponse` throws a timeout after it landed. */
    apply(input: unknown, loseResponse = false): string {
      const key = callContext().idempotencyKey;
      requests.push({ key, input });
      const already = applied.some((write) => write.key === key);
      if (!(options.dedupe && already)) applied.push({ key, input });
      if (loseResponse) throw new DOMException('The operation timed out.', 'TimeoutError');
      return 'refunded';
    },
    findByKey(key: string): DownstreamRequest | undefined {
      return applied.find((write) => write.key === key);
    },
  };
}

/** Every body sent to the model, to prove what reached (or never reached) it. */
export function allBodies(provider: ScriptedProvider): string {
  return provider.requests.map((request) => request.rawBody).join('\n');
}

/**
 * The recovery contract inside a tool result the model received. The SDK sends a thrown
 * error as error text; some provider formats wrap it as `{"error": "<text>"}`.
 */
export function readContract(output: string): Record<string, unknown> {
  const parsed = JSON.parse(output) as Record<string, unknown>;
  return typeof parsed.error === 'string' && !('failure_class' in parsed)
    ? (JSON.parse(parsed.error) as Record<string, unknown>)
    : parsed;
}

/** A failed HTTP call as fetch wrappers (ky, ofetch, ...) throw it: a real `Response` on the error. */
export function httpFailure(
  status: number,
  headers: Record<string, string> = {},
  body = '',
): Error & { response: Response } {
  const response = new Response(body || null, { status, headers });
  return Object.assign(new Error(`Request failed with status ${status}`), { response });
}

/** Runs `work` while waking the fake clock's sleepers, until `work` settles. */
export async function driveClock<T>(
  clock: { next(): Promise<boolean> },
  work: Promise<T>,
): Promise<T> {
  let settled = false;
  const tracked = work.finally(() => {
    settled = true;
  });
  while (!settled) {
    // Let real I/O (msw, fetch) make progress when no sleeper is due.
    if (!(await clock.next())) await new Promise((resolve) => setImmediate(resolve));
  }
  return tracked;
}

/** The error object of the first tool-error part of a step (the SDK keeps the original). */
/**
 * The failure behind a step's failed call, in either failure mode: the contract and the
 * original error, from the tool result (default) or the tool-error part ('throw').
 */
export function failureIn(step: { content: readonly { type: string }[] } | undefined): {
  contract: RecoveryContract;
  cause: unknown;
} {
  for (const part of step?.content ?? []) {
    const { error, output } = part as { error?: unknown; output?: unknown };
    if (part.type === 'tool-error' && ToolCallFailedError.isInstance(error)) {
      return { contract: (error as ToolCallFailedError).contract, cause: error.cause };
    }
    const found = part.type === 'tool-result' ? toolCallFailureOf(output) : undefined;
    if (found) return found;
  }
  throw new Error('the step has no failed tool call');
}

// A sandbox service called as a fetch wrapper does (shared: `@recourse/testing`).
export { callService } from '@recourse/testing';

/**
 * The system-level text one request carried (system and developer messages, and the
 * Responses API's `instructions`): where the adapter puts its guidance for the next step.
 */
export function instructionsSent(provider: ScriptedProvider, index: number): string {
  const request = provider.requests[index];
  if (!request) throw new Error(`the provider received no request #${index}`);
  const { body } = request;
  const list = (request.api === 'chat' ? body.messages : body.input) as unknown[] | undefined;
  const parts = typeof body.instructions === 'string' ? [body.instructions] : [];
  for (const entry of list ?? []) {
    const { role, content } = entry as { role?: string; content?: unknown };
    if (role !== 'system' && role !== 'developer') continue;
    parts.push(typeof content === 'string' ? content : JSON.stringify(content));
  }
  return parts.join('\n');
}
