import { createHash, hash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';

export const maxIdempotencyKeyLength = 255;

// `crypto.hash` (Node >= 21.7) is a one-shot digest, several times cheaper than createHash.
const sha256Hex: (text: string) => string =
  typeof hash === 'function'
    ? (text) => hash('sha256', text, 'hex')
    : (text) => createHash('sha256').update(text).digest('hex');

export function hashText(text: string, length = 64): string {
  return sha256Hex(text).slice(0, length);
}

/** Hash of the canonical payload: what a ledger compares to detect key reuse. */
export function payloadHash(input: unknown): string {
  return hashText(canonicalJson(input));
}

export interface KeyParts {
  runId: string;
  toolName: string;
  input: unknown;
}

/**
 * The default idempotency key of a logical operation: run, tool and canonical input.
 * The same operation gets the same key on every retry, replay, worker and model turn
 * (tool-call ids are deliberately not part of it: models mint new ones when they re-plan).
 * Readable prefix, at most 255 characters.
 */
export function deriveIdempotencyKey({ runId, toolName, input }: KeyParts): string {
  return keyFromPayloadHash(runId, toolName, payloadHash(input));
}

/** The default key from an already computed `payloadHash(input)`: one hash per call. */
export function keyFromPayloadHash(runId: string, toolName: string, inputHash: string): string {
  const digest = inputHash.slice(0, 32);
  const readable = `${runId}:${toolName}:${digest}`;
  if (readable.length <= maxIdempotencyKeyLength) return readable;
  return `${runId.slice(0, 100)}:${toolName.slice(0, 80)}:${hashText(`${runId}\u0000${toolName}\u0000${digest}`, 64)}`;
}

/** Bounds a user-supplied key: kept as is when short enough, else prefix + hash. */
export function boundKey(key: string): string {
  if (key.length <= maxIdempotencyKeyLength) return key;
  return `${key.slice(0, 180)}:${hashText(key, 64)}`;
}
