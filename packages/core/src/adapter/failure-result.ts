import type { RecoveryContract } from '../contract/recovery-contract.js';
import { hasMarker } from '../errors.js';

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
