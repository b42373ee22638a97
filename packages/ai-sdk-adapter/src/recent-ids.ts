/** A set of the most recent ids, bounded so a long-lived run does not grow without end. */
export interface RecentIds {
  add(id: string): void;
  has(id: string): boolean;
}

export function createRecentIds(limit = 1_000): RecentIds {
  let ids = new Set<string>();
  return {
    add(id) {
      if (ids.has(id)) return;
      ids.add(id);
      // Trimmed in batches: deleting the oldest one by one leaves holes every lookup walks.
      if (ids.size > limit + limit / 10) ids = new Set([...ids].slice(-limit));
    },
    has: (id) => ids.has(id),
  };
}
