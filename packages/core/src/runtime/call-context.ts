import { AsyncLocalStorage } from 'node:async_hooks';
import { RecourseError } from '../errors.js';

/** What a wrapped tool (and anything it calls) can know about the current call. */
export interface CallContext {
  runId: string;
  toolName: string;
  /** The SDK's id for this call; changes when the model re-issues the call. */
  toolCallId: string;
  /**
   * Stable for the logical operation: send it downstream as the Idempotency-Key. Derived
   * on first read (a read tool that never asks pays nothing for it).
   */
  readonly idempotencyKey: string;
  /** 1 for the first attempt of this call. */
  attempt: number;
}

const storage = new AsyncLocalStorage<CallContext>();

/** Runs `fn(...args)` with `context` as the current call (no closure needed per call). */
export function runInCallContext<A extends unknown[], T>(
  context: CallContext,
  fn: (...args: A) => T,
  ...args: A
): T {
  return storage.run(context, fn, ...args);
}

/** The current call's context. Throws when called outside a wrapped tool's execute. */
export function callContext(): CallContext {
  const context = storage.getStore();
  if (!context) {
    throw new RecourseError(
      'OUTSIDE_CALL',
      'callContext() was called outside a tool wrapped by recourse',
    );
  }
  return context;
}

/** The current call's context, or undefined outside a wrapped tool. */
export function currentCallContext(): CallContext | undefined {
  return storage.getStore();
}
