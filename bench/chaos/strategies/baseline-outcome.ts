import type { StepOutcome } from './strategy.js';

/**
 * The text the model receives for a tool error that reaches the AI SDK loop: `ai` turns a
 * thrown value into a `tool-error` part and the model reads `getErrorMessage(error)`
 * (vercel/ai `packages/provider/src/errors/get-error-message.ts`: `error.toString()` for an
 * Error, the string itself, else JSON).
 */
export function aiSdkErrorText(error: unknown): string {
  if (error == null) return 'unknown error';
  if (typeof error === 'string') return error;
  if (error instanceof Error) return error.toString();
  return JSON.stringify(error);
}

/**
 * How the simulated agent reads a baseline's error text, as a model would: an HTTP status
 * in the text says what to do (422 → fix the arguments, 412 → re-read and try again,
 * 403 → stop); any other failure (a timeout, 429, 503, or a text that names no status)
 * is worth calling again.
 */
export function outcomeFromText(text: string): StepOutcome {
  const status = /\((\d{3})\)/.exec(text)?.[1];
  const reason = status ? `HTTP ${status}` : /TimeoutError/.test(text) ? 'TimeoutError' : text;
  if (status === '422') return { ok: false, next: 'repair', inDoubt: false, reason };
  if (status === '412') return { ok: false, next: 'reobserve', inDoubt: false, reason };
  if (status === '403') return { ok: false, next: 'blocked', inDoubt: false, reason };
  return { ok: false, next: 'reissue', inDoubt: false, reason };
}

/** A retry wrapper that gave up and rethrew: the AI SDK shows the model the error's text. */
export function outcomeFromError(error: unknown): StepOutcome {
  return outcomeFromText(aiSdkErrorText(error));
}

let keySequence = 0;

/** The anti-pattern under test: a fresh idempotency key for every attempt. */
export function freshKey(operation: string): string {
  keySequence++;
  return `${operation}#attempt-${keySequence}`;
}
