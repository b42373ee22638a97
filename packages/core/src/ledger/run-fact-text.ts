import { InvalidOptionsError } from '../errors.js';
import { type RunFactKind, type RunFactLists, runFactKinds } from './ledger.js';

/**
 * How stores that keep facts as JSON text (SQLite, Redis, PostgreSQL) check, write and
 * read them, so that every store accepts and returns exactly the same facts.
 */

export function isRunFactKind(kind: unknown): kind is RunFactKind {
  return typeof kind === 'string' && (runFactKinds as readonly string[]).includes(kind);
}

/**
 * The fact as the JSON text a store keeps. Rejects an unknown kind, an id that is not a
 * string and a fact that is not a JSON object, naming the field: stored, they could never
 * be listed as the facts they claim to be.
 */
export function serializeRunFact(kind: unknown, id: unknown, fact: unknown): string {
  if (!isRunFactKind(kind)) {
    throw new InvalidOptionsError(
      'kind',
      `must be one of ${runFactKinds.join(', ')}, got ${JSON.stringify(kind)}`,
    );
  }
  if (typeof id !== 'string') {
    throw new InvalidOptionsError('id', `must be a string, got ${typeof id}`);
  }
  let text: string | undefined;
  try {
    text = typeof fact === 'object' && fact !== null ? JSON.stringify(fact) : undefined;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new InvalidOptionsError('fact', `must be JSON-serialisable: ${reason}`);
  }
  if (text === undefined || !text.startsWith('{')) {
    throw new InvalidOptionsError('fact', 'must be a plain JSON object');
  }
  return text;
}

/** Every kind present, each an empty list. */
export function createRunFactLists(): RunFactLists {
  return { denial: [], grant: [], poison: [], escalation: [] };
}

/**
 * Appends a stored fact to its kind's list (a fresh parse, so a copy). A kind this
 * library does not know (written by a newer version) is skipped rather than failing the
 * whole read.
 */
export function pushRunFact(lists: RunFactLists, kind: string, json: string): void {
  if (!isRunFactKind(kind)) return;
  (lists[kind] as unknown[]).push(JSON.parse(json));
}
