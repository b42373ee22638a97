import { quoteAsData } from '../classify/quote-as-data.js';
import { hasMarker } from '../errors.js';
import type { Classification, Decision, FailureClass, RecoveryAction } from '../types.js';

/**
 * What the model is told when a call ends in failure: structured JSON first, prose
 * second (a recovery action contract). `error_detail` is text from the failing
 * system, redacted and bounded: data to read, never an instruction to follow.
 */
export interface RecoveryContract {
  status: 'FAILED' | 'BLOCKED' | 'IN_FLIGHT';
  failure_class: FailureClass;
  recommended_recovery: RecoveryAction;
  retry_same_action: boolean;
  code: string;
  tool: string;
  reason: string;
  guidance: string;
  retry_after_ms?: number | undefined;
  invalid_field?: string | undefined;
  repairs_remaining?: number | undefined;
  attempts?: number | undefined;
  idempotency_key?: string | undefined;
  resource?: string | undefined;
  next_possible_action?: string | undefined;
  /** With a REPLAN: the plan version this failure invalidated, and the one to make. */
  invalidated_plan?: number | undefined;
  plan_version?: number | undefined;
  error_detail?: string | undefined;
}

export interface ContractInput {
  tool: string;
  decision: Decision;
  classification: Classification;
  attempts?: number | undefined;
  repairsRemaining?: number | undefined;
  idempotencyKey?: string | undefined;
  resource?: string | undefined;
  nextPossibleAction?: string | undefined;
  /** A write left in doubt with nothing to prove it: the read tools that can show the state. */
  verifyWith?: readonly string[] | undefined;
  status?: RecoveryContract['status'] | undefined;
  /** A REPLAN closed plan `from` and opened `to`, invalidated by `observation`. */
  plan?: { from: number; to: number; observation: string } | undefined;
}

export function buildContract(input: ContractInput): RecoveryContract {
  const { tool, decision, classification } = input;
  const status =
    input.status ?? (classification.failureClass === 'AUTHORIZATION' ? 'BLOCKED' : 'FAILED');
  return dropUndefined({
    status,
    failure_class: classification.failureClass,
    recommended_recovery: decision.action,
    retry_same_action: decision.action === 'RETRY',
    code:
      decision.action === 'ABORT' || decision.code === 'POISON'
        ? decision.code
        : classification.code,
    tool,
    reason: decision.reason,
    guidance: guidanceFor(input, status),
    retry_after_ms: classification.retryAfterMs,
    invalid_field: safeField(classification.field),
    repairs_remaining: input.repairsRemaining,
    attempts: input.attempts,
    idempotency_key: input.idempotencyKey,
    resource: input.resource,
    next_possible_action:
      status === 'BLOCKED' ? input.nextPossibleAction : verifyNext(input.verifyWith),
    invalidated_plan: input.plan?.from,
    plan_version: input.plan?.to,
    error_detail: classification.message ? quoteAsData(classification.message) : undefined,
  });
}

/** The contract as the text a model receives. */
export function contractText(contract: RecoveryContract): string {
  return JSON.stringify(contract);
}

function guidanceFor(input: ContractInput, status: RecoveryContract['status']): string {
  const { tool, decision, classification } = input;
  if (status === 'BLOCKED') {
    return `Access was denied. This route is closed, and so is every other route to the same resource: do not try another tool, command, endpoint or credential for it. Report that an authorized operator is required.`;
  }
  if (status === 'IN_FLIGHT') {
    return `The same ${tool} operation is still running elsewhere. Do not send it again; check its result later.`;
  }
  switch (decision.action) {
    case 'REPAIR': {
      if (classification.source === 'check') {
        return `${tool} ran, and its result says it did not do the job (${classification.code}). Change what produced that result before calling ${tool} again; the same call will give the same result.`;
      }
      const named = safeField(classification.field);
      const field = named ? ` (field "${named}")` : '';
      return `The arguments of ${tool} were rejected${field}. Correct them before calling ${tool} again; the same arguments will fail the same way.`;
    }
    case 'REOBSERVE':
      if (decision.code === 'RESULT_NOT_STORED') {
        return `${tool} already completed this operation, but its result could not be stored. Do not send it again; read the current state to learn the result.`;
      }
      if (decision.code === 'LEASE_LOST' || decision.code === 'IN_FLIGHT') {
        return `The same ${tool} operation is being completed by another worker. Do not send it again; check its result later.`;
      }
      return `The state ${tool} acted on has changed since it was observed. Read the current state again, then decide anew; do not repeat the same call.`;
    case 'REPLAN': {
      const plan = input.plan
        ? ` Replan: plan v${input.plan.from} invalidated by ${input.plan.observation}; make plan v${input.plan.to}.`
        : '';
      if (decision.code === 'POISON') {
        return `${tool} failed the same way after the repair budget was spent: this action is quarantined and will not run again with these arguments.${plan} Take another approach; do not repeat the same call.`;
      }
      return `${tool} cannot succeed as asked.${plan} Change the plan; do not repeat the same call.`;
    }
    case 'RECONCILE':
      return `The outcome of ${tool} is unknown. It must be checked before anything is sent again.`;
    default:
      break;
  }
  switch (decision.code) {
    case 'RECONCILE_BY_HAND': {
      const readers = input.verifyWith ?? [];
      if (readers.length > 0) {
        return `The outcome of ${tool} is unknown and it was not re-sent, because sending it again could do it twice. Find out whether it happened: read the current state with ${readers.join(' or ')}, or ask the user, and say what you found. Do not call ${tool} for this again.`;
      }
      return `The outcome of ${tool} is unknown and it was not re-sent, because sending it again could do it twice. Ask the user whether it happened, or leave it for a person to check the downstream system; do not call ${tool} for this again.`;
    }
    case 'RECONCILE_FAILED':
      return `The outcome of ${tool} is unknown and it was not re-sent. A person must check the downstream system; do not call ${tool} for this again.`;
    case 'POISON':
      return `${tool} failed the same way after the repair budget was spent. The run is stopping.`;
    case 'RUN_STOPPED':
      return 'The run has stopped. Do not call any more tools; report the outcome.';
    default:
      return `${tool} is unavailable. The run is stopping; do not call it again.`;
  }
}

/** For a write left in doubt: the safe next step, naming the read tools when there are some. */
function verifyNext(readers: readonly string[] | undefined): string | undefined {
  if (readers === undefined) return undefined;
  return readers.length > 0
    ? `read the state with ${readers.join(' or ')}, or ask the user`
    : 'ask the user whether it happened';
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/**
 * A field path fit to show the model outside the quoted data: identifier-like segments
 * only, bounded. A path is written by whatever failed (a schema library, a downstream's
 * body), so anything else is dropped rather than passed on as prose.
 */
function safeField(field: string | undefined): string | undefined {
  if (field === undefined || field.length > 128) return undefined;
  return /^[\w$][\w$.[\]-]*$/.test(field) ? field : undefined;
}

// A failed call's contract carried as the tool's result (the adapters' default
// `failureMode`), with the original error kept where only the application finds it.

const failure = Symbol.for('recourse.toolCallFailure');

export interface FailureDetails {
  contract: RecoveryContract;
  cause: unknown;
}

/**
 * A failed call returned as the tool's result: the model receives the recovery contract
 * as plain JSON (a thrown error reaches it wrapped as `{"error": "<escaped text>"}`), and
 * the application still finds the original error on the result, which the SDK keeps in
 * `step.content`, through `toolCallFailureOf` (a non-enumerable symbol: never serialised).
 */
export function toFailureResult(contract: RecoveryContract, cause: unknown): RecoveryContract {
  const result = { ...contract };
  Object.defineProperty(result, failure, { value: { contract, cause } satisfies FailureDetails });
  return result;
}

/** True when a tool result is a recourse failure contract (the default `failureMode`). */
export function isToolCallFailure(value: unknown): value is RecoveryContract {
  return hasMarker(value, failure);
}

/** The contract and the original error behind a failed call's result, if it is one. */
export function toolCallFailureOf(value: unknown): FailureDetails | undefined {
  return isToolCallFailure(value)
    ? ((value as unknown as Record<symbol, FailureDetails>)[failure] ?? undefined)
    : undefined;
}
