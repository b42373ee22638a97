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

/**
 * Keeps the newest `limit` of a map (`maxEntries` by default), trimming once it is a tenth
 * over: one walk from the front deletes the oldest in a batch, so each call costs O(1) on
 * average and the map is never copied. `dropped` hears of each value let go.
 */
export function trim<K, V>(map: Map<K, V>, limit = maxEntries, dropped?: (value: V) => void): void {
  let excess = map.size - limit;
  if (excess <= limit / 10) return;
  for (const [key, value] of map) {
    map.delete(key);
    dropped?.(value);
    if (--excess === 0) return;
  }
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
