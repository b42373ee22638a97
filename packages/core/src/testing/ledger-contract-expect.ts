import { expect } from 'vitest';
import { LeaseLostError, RecourseError } from '../errors.js';
import type { ClaimResult, StoredResult } from '../ledger/ledger.js';
import type { JsonValue } from '../types.js';

/** Narrows a claim to `acquired` (failing the test otherwise) and returns its token. */
export function expectAcquired(
  result: ClaimResult,
  previous?: 'uncertain' | 'expired' | undefined,
): string {
  expect(result.status).toBe('acquired');
  if (result.status !== 'acquired') throw new Error('unreachable');
  expect(typeof result.token).toBe('string');
  expect(result.token.length).toBeGreaterThan(0);
  expect(result.previous).toBe(previous);
  return result.token;
}

/** Passes when `promise` rejects with a lease-lost error, checked both ways errors are. */
export async function expectLeaseLost(promise: Promise<unknown>): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LeaseLostError);
  expect(RecourseError.isInstance(error) && error.code === 'LEASE_LOST').toBe(true);
}

/** A result as the runtime hands it to `complete`: its JSON text. */
export function stored(value: JsonValue): StoredResult {
  return { json: JSON.stringify(value) };
}
