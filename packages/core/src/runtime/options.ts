import type { Recogniser } from '../classify/index.js';
import type { Clock, RandomSource } from '../clock.js';
import { InvalidOptionsError } from '../errors.js';
import type { Ledger } from '../ledger/ledger.js';
import type { BackoffOptions } from '../policy/backoff.js';
import type { RetryBudget, RetryBudgetOptions } from '../policy/retry-budget.js';
import type { Classification } from '../types.js';
import type { EventListener } from './events.js';

export type ReconcileResult = { happened: true; result?: unknown } | { happened: false };

export interface ToolCallInfo {
  runId: string;
  toolName: string;
  idempotencyKey: string;
}

/** How recourse treats one tool. Every field is optional; a read-only tool needs none. */
// biome-ignore lint/suspicious/noExplicitAny: the default lets a policy declare its own input type (`(i: { repo: string }) => ...`) where `unknown` would reject it.
export interface ToolPolicy<Input = any> {
  /** A write: claimed in the ledger, never blindly retried once it may have landed. */
  sideEffects?: boolean | undefined;
  /** The downstream dedupes on the idempotency key, so a replay behind it is safe. */
  idempotent?: boolean | undefined;
  /** Reads the downstream state to prove whether an in-doubt write happened. */
  reconcile?:
    | ((input: Input, info: ToolCallInfo) => Promise<ReconcileResult> | ReconcileResult)
    | undefined;
  /** A degraded alternative, used explicitly (the outcome becomes PARTIAL_RESULT). */
  fallback?:
    | ((input: Input, info: ToolCallInfo & { classification: Classification }) => unknown)
    | undefined;
  /** What the call touches, as canonical resource strings (see urlResource & co.). */
  resource?: ((input: Input) => string | readonly string[]) | undefined;
  /** What the call needs, for scope rules over capabilities. */
  capability?: string | undefined;
  /** Your own idempotency key for the logical operation. */
  key?: ((input: Input, info: { runId: string; toolName: string }) => string) | undefined;
  /** Attempts of one call for this tool. Default: `retry.maxAttempts`. */
  maxAttempts?: number | undefined;
  /** Retry-budget bucket. Default: the tool name. */
  dependency?: string | undefined;
  /** Names what the result lacks when the fallback is used (PARTIAL_RESULT). */
  missingEvidence?: string | undefined;
}

export interface RetryOptions extends BackoffOptions {
  /** Attempts of one call, the first included. Default 3. */
  maxAttempts?: number | undefined;
  /**
   * Per-dependency retry throttling; `false` turns it off. Default: on, in-process, 10
   * tokens, ratio 0.1. Pass a `RetryBudget` (e.g. `createRedisRetryBudget` from
   * `@recourse/store-redis`) to share one bucket across processes; its methods may return
   * promises, and one that throws or rejects never breaks a call.
   */
  budget?: RetryBudget | RetryBudgetOptions | false | undefined;
}

export interface RecoveryOptions {
  runId: string;
  ledger?: Ledger | undefined;
  policies?: Record<string, ToolPolicy> | undefined;
  retry?: RetryOptions | undefined;
  /** Repairs per failure fingerprint before the step is poison. Default 2. */
  repairBudget?: number | undefined;
  scope?:
    | { allow?: readonly string[] | undefined; deny?: readonly string[] | undefined }
    | undefined;
  /** 'stop' (default): the run ends at the first denial. 'continue': only denied resources stay blocked. */
  onDenial?: 'stop' | 'continue' | undefined;
  /** What a BLOCKED outcome suggests. Default "request authorized operator". */
  nextPossibleAction?: string | undefined;
  onEvent?: EventListener | undefined;
  /** Your own error recognisers, consulted before the built-in ones. */
  recognisers?: readonly Recogniser[] | undefined;
  /** How long a duplicate waits for an in-flight write before reporting it. Default 5 s. */
  inFlightWaitMs?: number | undefined;
  clock?: Clock | undefined;
  random?: RandomSource | undefined;
}

const policyFunctions = ['reconcile', 'fallback', 'resource', 'key'] as const;
const policyBooleans = ['sideEffects', 'idempotent'] as const;

/** Fails at construction with a message naming the bad field. */
export function validateRecoveryOptions(options: unknown): asserts options is RecoveryOptions {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidOptionsError('options', 'expected an object with at least `runId`');
  }
  const o = options as Record<string, unknown>;
  if (typeof o.runId !== 'string' || o.runId.trim() === '') {
    throw new InvalidOptionsError('runId', 'must be a non-empty string');
  }
  if (o.runId.length > 128)
    throw new InvalidOptionsError('runId', 'must be at most 128 characters');
  if (o.ledger !== undefined && !isLedger(o.ledger)) {
    throw new InvalidOptionsError(
      'ledger',
      'must implement the Ledger interface (claim, complete, ...)',
    );
  }
  if (o.repairBudget !== undefined) checkCount(o.repairBudget, 'repairBudget', 0);
  if (o.inFlightWaitMs !== undefined) checkCount(o.inFlightWaitMs, 'inFlightWaitMs', 0);
  if (o.onDenial !== undefined && o.onDenial !== 'stop' && o.onDenial !== 'continue') {
    throw new InvalidOptionsError('onDenial', "must be 'stop' or 'continue'");
  }
  if (o.onEvent !== undefined && typeof o.onEvent !== 'function') {
    throw new InvalidOptionsError('onEvent', 'must be a function');
  }
  if (o.retry !== undefined) {
    if (typeof o.retry !== 'object' || o.retry === null)
      throw new InvalidOptionsError('retry', 'must be an object');
    const retry = o.retry as Record<string, unknown>;
    if (retry.maxAttempts !== undefined) checkCount(retry.maxAttempts, 'retry.maxAttempts', 1);
  }
  if (o.policies !== undefined) {
    if (typeof o.policies !== 'object' || o.policies === null) {
      throw new InvalidOptionsError('policies', 'must be an object keyed by tool name');
    }
    for (const [tool, policy] of Object.entries(o.policies)) validatePolicy(tool, policy);
  }
}

function validatePolicy(tool: string, policy: unknown): void {
  const at = `policies.${tool}`;
  if (typeof policy !== 'object' || policy === null)
    throw new InvalidOptionsError(at, 'must be an object');
  const p = policy as Record<string, unknown>;
  for (const name of policyFunctions) {
    if (p[name] !== undefined && typeof p[name] !== 'function') {
      throw new InvalidOptionsError(`${at}.${name}`, 'must be a function');
    }
  }
  for (const name of policyBooleans) {
    if (p[name] !== undefined && typeof p[name] !== 'boolean') {
      throw new InvalidOptionsError(`${at}.${name}`, 'must be a boolean');
    }
  }
  if (p.maxAttempts !== undefined) checkCount(p.maxAttempts, `${at}.maxAttempts`, 1);
  if (p.idempotent === true && p.sideEffects !== true) {
    throw new InvalidOptionsError(
      `${at}.idempotent`,
      'only means something for a write: set `sideEffects: true` too',
    );
  }
}

function checkCount(value: unknown, field: string, min: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new InvalidOptionsError(field, `must be an integer >= ${min}, got ${String(value)}`);
  }
}

function isLedger(value: unknown): value is Ledger {
  if (typeof value !== 'object' || value === null) return false;
  const l = value as Record<string, unknown>;
  return [
    'claim',
    'complete',
    'release',
    'markUncertain',
    'get',
    'incrementCounter',
    'getCounter',
    'addDenial',
    'listDenials',
  ].every((method) => typeof l[method] === 'function');
}
