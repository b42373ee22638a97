/** A set of the most recent ids, bounded so a long-lived run does not grow without end. */
export interface RecentIds {
  add(id: string): void;
  has(id: string): boolean;
}

export function createRecentIds(limit = 1_000): RecentIds {
  const ids = new Set<string>();
  return {
    add(id) {
      if (ids.has(id)) return;
      ids.add(id);
      // Trimmed in batches, in place: one walk from the front deletes the oldest tenth.
      let excess = ids.size - limit;
      if (excess <= limit / 10) return;
      for (const old of ids) {
        ids.delete(old);
        if (--excess === 0) return;
      }
    },
    has: (id) => ids.has(id),
  };
}
