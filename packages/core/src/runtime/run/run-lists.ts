import type { BlockedEntry, RunAction } from './run-actions.js';

// A run can be long-lived (a chat session): its lists are bounded, newest kept.
const maxEntries = 1_000;

/** Appends, keeping the newest `maxEntries` (trimmed once a tenth over). */
export function push<T>(list: T[], item: T): void {
  list.push(item);
  if (list.length > maxEntries + maxEntries / 10) list.splice(0, list.length - maxEntries);
}

export const blockedKey = (entry: BlockedEntry) =>
  JSON.stringify([entry.tool, entry.resource, entry.reason]);
export const degradedKey = (entry: { tool: string; missing: string }) =>
  JSON.stringify([entry.tool, entry.missing]);

/** Adds `item` once, in the order first seen; a repeat keeps the first place. */
export function remember<T>(map: Map<string, T>, item: T, key: (item: T) => string): void {
  const id = key(item);
  if (map.has(id)) return;
  map.set(id, item);
  trim(map);
}

// Where each trimmed map's oldest entry is: a live iterator. A Map's iterator goes on past
// entries added after it and skips deleted ones, so each trim starts where the last one
// stopped, instead of walking again over the slots earlier trims emptied (a Map keeps
// them until it is rehashed: a walk from the front would cost the map's capacity).
const oldest = new WeakMap<Map<unknown, unknown>, Iterator<[unknown, unknown]>>();

/**
 * Keeps the newest `limit` of a map (`maxEntries` by default), trimming once it is a tenth
 * over: the oldest are deleted in a batch, so each call costs O(1) on average and the map
 * is never copied. `dropped` hears of each value let go.
 */
export function trim<K, V>(map: Map<K, V>, limit = maxEntries, dropped?: (value: V) => void): void {
  let excess = map.size - limit;
  if (excess <= limit / 10) return;
  const untyped = map as Map<unknown, unknown>;
  let entries = oldest.get(untyped) ?? untyped.entries();
  for (; excess > 0; excess--) {
    let next = entries.next();
    if (next.done) {
      // Walked to the end once (every entry it saw was deleted): start again.
      entries = untyped.entries();
      next = entries.next();
      if (next.done) break;
    }
    const [key, value] = next.value as [K, V];
    map.delete(key);
    dropped?.(value);
  }
  oldest.set(untyped, entries);
}

/**
 * The blocked list once an operator answered an escalation of `action.tool`: its requests
 * are gone when approved, and say APPROVAL_DECLINED when declined. Rebuilt in order, so a
 * declined request that now says what an earlier entry says is listed once.
 */
export function answerEscalation(
  blocked: ReadonlyMap<string, BlockedEntry>,
  action: Extract<RunAction, { type: 'escalation.answered' }>,
): Map<string, BlockedEntry> {
  const answered = new Map<string, BlockedEntry>();
  for (const entry of blocked.values()) {
    const mine =
      entry.tool === action.tool &&
      entry.reason === 'APPROVAL_REQUESTED' &&
      action.resources.includes(entry.resource);
    if (!mine) remember(answered, entry, blockedKey);
    else if (action.declined)
      remember(answered, { ...entry, reason: 'APPROVAL_DECLINED' }, blockedKey);
  }
  return answered;
}
